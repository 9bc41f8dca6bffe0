// Differential check of compound index bounds over arrays (issue #19): seeded
// random documents with arrays of documents, nested arrays and scalars, and
// random conjunctions, $elemMatch, $or and negations over compound and
// positional compound indexes; each query (and the same query sorted by
// the index's key) must return on the indexed collection the _ids it
// returns on a collection without indexes. Deterministic (fixed seed).
load(__dirname + "/lib/assert.js");
load(__dirname + "/lib/differential.js");
const tdb = db.getSiblingDB("shell_index_compound_arrays_differential");
assert.commandWorked(tdb.dropDatabase());
let seed = 31337;
function rand(n) { seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n; }
function pick(l) { return l[rand(l.length)]; }
function scalar() { return pick([1, 2, 3, null, "x"]); }
function value(depth) {
  const kind = rand(depth > 2 ? 2 : 7);
  switch (kind) {
    case 0: case 1: return scalar();
    case 2: return [];
    case 3: { const a = []; for (let i = rand(3) + 1; i > 0; i--) a.push(value(depth + 1)); return a; }
    case 4: return { b: value(depth + 1) };
    case 5: return { b: value(depth + 1), c: scalar() };
    default: return [{ b: scalar(), c: scalar() }, { b: scalar() }];
  }
}
const docs = [];
for (let i = 0; i < 300; i++) docs.push({ _id: i, a: value(0), d: scalar() });
const indexes = [{ "a.b": 1, "a.c": 1 }, { a: 1, d: 1 }, { d: 1, "a.b": 1 }, { "a.b": 1, d: -1 }, { "a.0.b": 1, "a.0.c": 1 }];
const preds = () => {
  const v = scalar(), w = scalar();
  return pick([
    { "a.b": v, "a.c": w }, { "a.b": { $gte: 2 }, "a.c": { $lte: 2 } }, { a: { $elemMatch: { b: v, c: w } } },
    { a: { $elemMatch: { b: { $gte: 1 }, c: null } } }, { d: v, "a.b": { $ne: w } }, { $or: [{ "a.b": v }, { d: w }] },
    { a: v, d: w }, { "a.0.b": v, "a.0.c": { $ne: w } }, { "a.b": { $in: [v, w] }, d: { $exists: true } },
    { "a.b": { $not: { $in: [v] } } }, { a: { $elemMatch: { b: { $elemMatch: { $eq: v } } } } },
  ]);
};
let n = 0;
indexes.forEach((key, k) => {
  const plain = tdb["p" + k], indexed = tdb["i" + k];
  indexed.createIndex(key);
  insertIntoBoth(indexed, plain, docs);  // documents the index refuses stay out of both
  for (let q = 0; q < 120; q++) {
    const f = preds();
    const e = plain.find(f).toArray().map((d) => d._id).sort((x, y) => x - y).join();
    const a = indexed.find(f).toArray().map((d) => d._id).sort((x, y) => x - y).join();
    assert.eq(a, e, "index " + JSON.stringify(key) + " filter " + JSON.stringify(f));
    const s = indexed.find(f).sort(key).toArray().map((d) => d._id).sort((x, y) => x - y).join();
    assert.eq(s, e, "sorted, index " + JSON.stringify(key) + " filter " + JSON.stringify(f));
    n++;
  }
});
print("index_compound_arrays_differential: ok, " + n + " queries");
