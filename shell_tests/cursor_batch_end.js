// Cursors end where their results end (issue #19), as in MongoDB
// (jstests/core/query/find_getmore_bsonsize.js and
// getmore_invalidated_documents.js):
//  * a getMore whose batch is cut by the 16 MiB reply limit and holds the
//    last document closes the cursor (id 0); one with more to come keeps it;
//  * a document deleted between find and getMore is not returned, also by
//    plans that keep the next match of each shard between batches (a sort
//    served by an index merge or by record-key order).
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_cursor_batch_end");
assert.commandWorked(tdb.dropDatabase());

// --- The 16 MiB limit -------------------------------------------------------
{
  const coll = tdb.big;
  const big = "x".repeat(16 * 1024 * 1024 - 64);
  assert.commandWorked(coll.insertOne({ _id: 0, padding: "small" }));
  assert.commandWorked(coll.insertOne({ _id: 1, padding: big }));
  let res = tdb.runCommand({ find: "big", filter: {}, sort: { _id: 1 }, batchSize: 1 });
  assert.eq(res.cursor.firstBatch.length, 1);
  assert.neq(res.cursor.id, NumberLong("0"));
  res = tdb.runCommand({ getMore: res.cursor.id, collection: "big" });
  assert.eq(res.cursor.nextBatch.length, 1);
  assert.eq(res.cursor.nextBatch[0]._id, 1);
  assert.eq(res.cursor.id, NumberLong("0"), "the getMore returning the last document closes the cursor");

  // Unsorted (a scan of every shard) too: the batch holding the last
  // document is the last one.
  res = tdb.runCommand({ find: "big", filter: { _id: { $gte: 0 } }, batchSize: 0 });
  let returned = 0;
  while (res.cursor.id != 0) {
    res = tdb.runCommand({ getMore: res.cursor.id, collection: "big" });
    assert.eq(res.cursor.nextBatch.length, 1, "one document per 16 MiB batch");
    returned += 1;
  }
  assert.eq(returned, 2);
}
{
  // Three 8 MiB documents: one per batch, the last getMore closes.
  const coll = tdb.halves;
  const half = "y".repeat(8 * 1024 * 1024);
  for (let i = 0; i < 3; i++) assert.commandWorked(coll.insertOne({ _id: i, padding: half }));
  let res = tdb.runCommand({ find: "halves", filter: {}, sort: { _id: 1 }, batchSize: 0 });
  const id = res.cursor.id;
  const seen = [];
  for (let i = 0; i < 3; i++) {
    res = tdb.runCommand({ getMore: id, collection: "halves" });
    assert.eq(res.cursor.nextBatch.length, 1, "getMore " + i);
    seen.push(res.cursor.nextBatch[0]._id);
    assert.eq(res.cursor.id, i < 2 ? id : NumberLong("0"), "cursor id after getMore " + i);
  }
  assert.eq(seen.join(), "0,1,2");
}

// --- Deleted between find and getMore --------------------------------------
function deletedAreNotReturned(name, setup, findCmd) {
  const coll = tdb[name];
  setup(coll);
  for (let i = 0; i < 20; i++) assert.commandWorked(coll.insertOne({ _id: i, a: 1, b: i }));
  const res = tdb.runCommand(Object.assign({ find: name, batchSize: 2 }, findCmd));
  assert.eq(res.cursor.firstBatch.length, 2, name);
  const first = res.cursor.firstBatch.map((d) => d._id);
  assert.commandWorked(coll.deleteMany({ _id: { $nin: first } }));
  const more = tdb.runCommand({ getMore: res.cursor.id, collection: name });
  assert.eq(more.cursor.nextBatch.map((d) => d._id).join(), "", name + ": deleted documents returned");
  assert.eq(more.cursor.id, NumberLong("0"), name);
}
deletedAreNotReturned("by_index_merge", (c) => c.createIndex({ a: 1, b: 1 }),
                      { filter: { a: 1 }, sort: { b: 1 } });
deletedAreNotReturned("by_record_key", () => {}, { filter: {}, sort: { _id: 1 } });
deletedAreNotReturned("by_index", (c) => c.createIndex({ b: 1 }), { filter: { b: { $gte: 0 } } });
deletedAreNotReturned("by_scan", () => {}, { filter: {} });

print("cursor_batch_end: ok");
