// $merge writes every document it can before reporting a failure (issue
// #19): MongoDB sends $merge's writes as unordered batches, so a duplicate
// key, or a document without a match under whenNotMatched: "fail", leaves
// the other documents of the batch written, then the stage fails with the
// first error (jstests/aggregation/sources/merge/batch_writes.js).
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_merge_writes_past_failures");
assert.commandWorked(tdb.dropDatabase());
const src = tdb.src;
for (let i = 0; i < 6; i++) assert.commandWorked(src.insertOne({ _id: i, b: i, v: "new" }));

function ids(coll, filter) {
  return coll.find(filter || {}).toArray().map((d) => d._id).sort().join();
}
function mergeFails(target, merge, code) {
  const res = commandReply(tdb, {
    aggregate: "src",
    pipeline: [{ $sort: { _id: 1 } }, { $merge: Object.assign({ into: target }, merge) }],
    cursor: {},
  });
  assert.commandFailedWithCode(res, code, JSON.stringify(merge));
}

// whenMatched: "fail": _id 2 is there already; 0, 1, 3, 4, 5 are inserted.
{
  const out = tdb.out_fail;
  assert.commandWorked(out.insertOne({ _id: 2, v: "old" }));
  mergeFails("out_fail", { whenMatched: "fail", whenNotMatched: "insert" }, 11000);
  assert.eq(ids(out), "0,1,2,3,4,5");
  assert.eq(out.findOne({ _id: 2 }).v, "old");
}

// A unique index of the target refuses one document; the others merge.
{
  const out = tdb.out_unique;
  out.createIndex({ b: 1 }, { unique: true });
  assert.commandWorked(out.insertOne({ _id: 100, b: 3 }));
  mergeFails("out_unique", {}, 11000);
  assert.eq(ids(out), "0,1,100,2,4,5");
}

// whenNotMatched: "fail": 1 and 4 have no match; the others are merged.
{
  const out = tdb.out_nomatch;
  for (const id of [0, 2, 3, 5]) assert.commandWorked(out.insertOne({ _id: id, v: "old" }));
  mergeFails("out_nomatch", { whenMatched: "merge", whenNotMatched: "fail" }, 13113);
  assert.eq(ids(out, { v: "new" }), "0,2,3,5");
  assert.eq(ids(out), "0,2,3,5");
}

// whenMatched: "fail" with documents that have no _id: each gets one, and
// none is inserted twice when the batch is retried past a failure.
{
  const noId = tdb.src_no_id;
  for (let i = 0; i < 4; i++) assert.commandWorked(noId.insertOne({ _id: i, k: i }));
  const out = tdb.out_no_id;
  out.createIndex({ k: 1 }, { unique: true });
  assert.commandWorked(out.insertOne({ k: 1 }));
  const res = commandReply(tdb, {
    aggregate: "src_no_id",
    pipeline: [{ $project: { _id: 0, k: 1 } }, { $merge: { into: "out_no_id", on: "k", whenMatched: "fail", whenNotMatched: "insert" } }],
    cursor: {},
  });
  assert.commandFailedWithCode(res, 11000);
  assert.eq(out.find().toArray().map((d) => d.k).sort().join(), "0,1,2,3");
}

print("merge_writes_past_failures: ok");
