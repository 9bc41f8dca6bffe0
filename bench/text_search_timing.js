// $text latency over 10,000 documents of which 10 hold the term (issue #19):
// the mean time of a find and what explain says it examined. Run it with
// mongosh against a server, e.g.
//   build/wire/tigerdoc --port 28918 --dbpath /tmp/tb &
//   shell_tests/node_modules/.bin/mongosh --quiet mongodb://127.0.0.1:28918/test bench/text_search_timing.js
// and compare two binaries on the same machine in one sitting.
const c = db.getSiblingDB("textbench").t;
c.drop();
const docs = [];
for (let i = 0; i < 10000; i++) {
  docs.push({ _id: i, t: (i % 1000 === 0 ? "rare kingfisher " : "ordinary day with some words ") + "n" + (i % 7) });
}
c.insertMany(docs);
c.createIndex({ t: "text" });
for (let i = 0; i < 5; i++) c.find({ $text: { $search: "kingfisher" } }).toArray();
const n = 100;
const start = Date.now();
for (let i = 0; i < n; i++) {
  if (c.find({ $text: { $search: "kingfisher" } }).toArray().length !== 10) throw new Error("bad count");
}
const msPerFind = (Date.now() - start) / n;
const e = c.find({ $text: { $search: "kingfisher" } }).explain("executionStats").executionStats;
print(JSON.stringify({ ms_per_find: msPerFind, docsExamined: e.totalDocsExamined, nReturned: e.nReturned }));
