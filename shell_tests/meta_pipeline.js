// Document metadata through the aggregation pipeline (issue #19), as
// MongoDB 7: a leading $text $match scores each document; {$meta:
// "textScore"} reads it in $project / $addFields / $group / $sort / $expr,
// it survives stages that keep the document and is gone (missing) after
// $group / $replaceRoot; {$meta: "sortKey"} after $sort and in find.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_meta_pipeline");
assert.commandWorked(tdb.dropDatabase());
const c = tdb.posts;
assert.commandWorked(tdb.createCollection("posts", { shards: 4 }));
c.createIndex({ body: "text" });
const docs = [];
for (let i = 0; i < 300; i++) {
  // i % 5 + 1 repetitions of "kiwi": five distinct scores.
  docs.push({ _id: i, g: i % 3, tags: ["a", "b"], body: Array(i % 5 + 1).fill("kiwi").join(" ") + " filler" + i });
}
assert.commandWorked(c.insertMany(docs));
const text = { $match: { $text: { $search: "kiwi" } } };
const findScores = {};
c.find({ $text: { $search: "kiwi" } }, { s: { $meta: "textScore" } }).toArray().forEach((d) => { findScores[d._id] = d.s; });

// $project / $addFields: the same score find gives, no hidden fields leak.
let out = c.aggregate([text, { $project: { s: { $meta: "textScore" } } }]).toArray();
assert.eq(out.length, 300);
out.forEach((d) => { assert.eq(d.s, findScores[d._id]); assert.eq(Object.keys(d).length, 2, JSON.stringify(d)); });
out = c.aggregate([text, { $addFields: { s: { $meta: "textScore" } } }, { $limit: 3 }]).toArray();
out.forEach((d) => { assert.eq(d.s, findScores[d._id]); assert.eq(Object.keys(d).length, 5, JSON.stringify(d)); });

// Sort by score (descending), across shards and getMore batches (101 first).
const sorted = c.aggregate([text, { $sort: { s: { $meta: "textScore" }, _id: 1 } },
                            { $project: { s: { $meta: "textScore" } } }], { cursor: { batchSize: 101 } }).toArray();
assert.eq(sorted.length, 300);
for (let i = 1; i < sorted.length; i++) assert.gte(sorted[i - 1].s, sorted[i].s, "descending");
// The same sort after a stage (not pushed into the scan).
const late = c.aggregate([text, { $addFields: { x: 1 } }, { $sort: { s: { $meta: "textScore" }, _id: 1 } },
                          { $project: { s: { $meta: "textScore" } } }]).toArray();
assert.docEq(late, sorted);

// Survives $match, $skip, $limit, $unwind, inclusion and exclusion $project, $unset.
out = c.aggregate([text, { $match: { g: 1 } }, { $skip: 2 }, { $limit: 5 }, { $unwind: "$tags" },
                   { $project: { g: 1 } }, { $project: { g: 0 } }, { $unset: "tags" },
                   { $addFields: { s: { $meta: "textScore" } } }]).toArray();
assert.eq(out.length, 10);
out.forEach((d) => assert.eq(d.s, findScores[d._id]));
// $expr in a later $match.
const top = c.aggregate([text, { $match: { $expr: { $gte: [{ $meta: "textScore" }, findScores[4]] } } }]).toArray();
assert.eq(top.length, 60);
// $group accumulators read it; the group's output has none.
out = c.aggregate([text, { $group: { _id: "$g", best: { $max: { $meta: "textScore" } }, n: { $sum: 1 } } },
                   { $addFields: { after: { $meta: "textScore" } } }, { $sort: { _id: 1 } }]).toArray();
assert.eq(out.length, 3);
out.forEach((d) => { assert.eq(d.best, findScores[4]); assert.eq(d.after, undefined); });
// $replaceRoot drops it.
out = c.aggregate([text, { $replaceRoot: { newRoot: { i: "$_id" } } }, { $project: { i: 1, s: { $meta: "textScore" } } }]).toArray();
out.forEach((d) => assert.eq(d.s, undefined));
// $facet sub-pipelines see it.
out = c.aggregate([text, { $facet: { top: [{ $sort: { s: { $meta: "textScore" }, _id: 1 } }, { $limit: 1 },
                                            { $project: { s: { $meta: "textScore" } } }] } }]).toArray();
assert.eq(out[0].top[0].s, findScores[4]);
// $out writes no metadata.
c.aggregate([text, { $addFields: { s: { $meta: "textScore" } } }, { $out: "scored" }]);
const written = tdb.scored.findOne({ _id: 4 });
assert.eq(Object.keys(written).sort(), ["_id", "body", "g", "s", "tags"]);

// Errors.
const agg = (pipeline) => commandReply(tdb, { aggregate: "posts", pipeline, cursor: {} });
assert.commandFailedWithCode(agg([{ $project: { s: { $meta: "textScore" } } }]), 40218);
assert.commandFailedWithCode(agg([{ $sort: { s: { $meta: "textScore" } } }]), 40218);
assert.commandFailedWithCode(agg([{ $match: { g: 1 } }, text]), 17313);
assert.commandFailedWithCode(agg([text, { $project: { s: { $meta: "bogus" } } }]), 17308);
assert.commandFailedWithCode(agg([text, { $project: { s: { $meta: 1 } } }]), 17307);
assert.commandFailedWithCode(agg([{ $sort: { s: { $meta: "bogus" } } }]), 31138);

// sortKey: aggregation after $sort (also when the sort is the first stage).
out = c.aggregate([{ $sort: { g: -1, _id: 1 } }, { $limit: 2 }, { $project: { k: { $meta: "sortKey" } } }]).toArray();
assert.docEq(out, [{ _id: 2, k: [2, 2] }, { _id: 5, k: [2, 5] }]);
out = c.aggregate([{ $match: { _id: { $lt: 2 } } }, { $sort: { tags: 1, _id: 1 } }, { $addFields: { k: { $meta: "sortKey" } } },
                   { $project: { k: 1 } }]).toArray();
assert.docEq(out, [{ _id: 0, k: ["a", 0] }, { _id: 1, k: ["a", 1] }]);
out = c.aggregate([text, { $sort: { s: { $meta: "textScore" }, _id: 1 } }, { $limit: 1 }, { $project: { k: { $meta: "sortKey" } } }]).toArray();
assert.docEq(out, [{ _id: 4, k: [findScores[4], 4] }]);
// Without a sort it is missing in aggregation.
out = c.aggregate([{ $match: { _id: 0 } }, { $project: { k: { $meta: "sortKey" } } }]).toArray();
assert.docEq(out, [{ _id: 0 }]);
// find: with a sort, and refused without one.
out = c.find({ _id: { $lt: 3 } }, { k: { $meta: "sortKey" }, g: 1 }).sort({ g: 1, _id: -1 }).toArray();
assert.docEq(out, [{ _id: 0, g: 0, k: [0, 0] }, { _id: 1, g: 1, k: [1, 1] }, { _id: 2, g: 2, k: [2, 2] }]);
assert.commandFailedWithCode(commandReply(tdb, { find: "posts", projection: { k: { $meta: "sortKey" } } }), 2);
// find's textScore projection and sort still work.
const f = c.find({ $text: { $search: "kiwi" } }, { s: { $meta: "textScore" } }).sort({ s: { $meta: "textScore" } }).limit(1).toArray();
assert.eq(f[0].s, findScores[4]);
assert.commandFailedWithCode(commandReply(tdb, { find: "posts", projection: { s: { $meta: "textScore" } } }), 40218);
print("meta_pipeline.js OK");
