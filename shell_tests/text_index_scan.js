// $text reads its terms from the text index (issue #19), seen from mongosh:
// explain's TEXT_MATCH over FETCH <- IXSCAN (one term), FETCH <- OR of
// IXSCANs (several) or TEXT_OR (textScore asked for), documents examined
// equal to the matches, a compound text index needing equalities on its
// prefix fields (291), and results that follow updates of the text.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_text_index_scan");
assert.commandWorked(tdb.dropDatabase());
const c = tdb.posts;
assert.commandWorked(tdb.createCollection("posts", { shards: 1 }));
assert.eq(c.createIndex({ body: "text" }), "body_text");
const docs = [];
for (let i = 0; i < 5000; i++) {
  docs.push({ _id: i, body: (i % 500 === 0 ? "rare kingfisher sighting " : "ordinary day ") + "note" + (i % 3) });
}
assert.commandWorked(c.insertMany(docs));

function shardPlan(explain) { return explain.queryPlanner.winningPlan.shards[0].winningPlan; }

let e = c.find({ $text: { $search: "kingfishers" } }).explain("executionStats");
assert.eq(shardPlan(e).stage, "TEXT_MATCH");
assert.eq(shardPlan(e).inputStage.stage, "FETCH");
assert.eq(shardPlan(e).inputStage.inputStage.stage, "IXSCAN");
assert.docEq(shardPlan(e).inputStage.inputStage.keyPattern, { _fts: "text", _ftsx: 1 });
assert.eq(e.executionStats.nReturned, 10);
assert.eq(e.executionStats.totalDocsExamined, 10);

e = c.find({ $text: { $search: "kingfisher note1" } }).explain("executionStats");
assert.eq(shardPlan(e).inputStage.inputStage.stage, "OR");
const expected = docs.filter((d) => d._id % 500 === 0 || d._id % 3 === 1).length;
assert.eq(e.executionStats.nReturned, expected);
assert.eq(e.executionStats.totalDocsExamined, expected);

e = c.find({ $text: { $search: "kingfisher" } }, { s: { $meta: "textScore" } })
  .sort({ s: { $meta: "textScore" } }).explain("executionStats");
assert.eq(JSON.stringify(e).indexOf('"TEXT_OR"') >= 0, true);
assert.eq(e.executionStats.totalDocsExamined, 10);

// Results follow the text as it changes.
assert.commandWorked(c.updateMany({ _id: { $lt: 1000 }, $text: { $search: "kingfisher" } },
                                  { $set: { body: "heron" } }));
assert.eq(c.countDocuments({ $text: { $search: "kingfisher" } }), 8);
assert.eq(c.find({ $text: { $search: "herons" } }).toArray().map((d) => d._id).sort((a, b) => a - b),
          [0, 500]);
assert.eq(c.find({ $text: { $search: "ordinary" } }).itcount(), 4990);

// A compound text index: equalities on its prefix fields are required.
const k = tdb.kinds;
assert.commandWorked(k.insertMany([{ _id: 1, kind: "bird", t: "heron" }, { _id: 2, kind: "fish", t: "heron fish" }]));
assert.eq(k.createIndex({ kind: 1, t: "text" }), "kind_1_t_text");
assert.commandFailedWithCode(() => k.find({ $text: { $search: "heron" } }).toArray(), 291);
assert.commandFailedWithCode(() => k.find({ $text: { $search: "heron" }, kind: { $in: ["bird"] } }).toArray(), 291);
assert.eq(k.find({ $text: { $search: "heron" }, kind: "fish" }).toArray().map((d) => d._id), [2]);
assert.eq(shardPlan(k.find({ $text: { $search: "heron" }, kind: "fish" }).explain()).indexPrefix.kind, "fish");
// Its non-text fields refuse arrays.
assert.commandFailedWithCode(() => k.insertOne({ _id: 3, kind: ["bird"], t: "crow" }), 201);
print("text_index_scan.js passed");
