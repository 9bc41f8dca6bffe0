// Change streams from mongosh: db.c.watch() sees inserts, updates (with
// updateDescription), replacements and deletes in order; a $match stage
// filters them; resumeAfter a token goes on after it; drop invalidates.
// Runs against the --replSet rs0 server (shell_tests/run, replset/);
// change_streams_standalone.js checks the standalone answer.
load(__dirname + "/../lib/assert.js");

const tdb = db.getSiblingDB("shell_change_streams");
assert.commandWorked(tdb.dropDatabase());
assert.commandWorked(tdb.c.insertOne({ _id: 0 }));

// Waits (up to 10 s) for the next event.
function nextEvent(stream) {
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline) {
    const e = stream.tryNext();
    if (e !== null) return e;
  }
  throw new Error("no change event within 10 s");
}

const stream = tdb.c.watch([], { maxAwaitTimeMS: 200 });
assert.commandWorked(tdb.c.insertOne({ _id: 1, a: 1, tags: ["x", "y"] }));
assert.commandWorked(tdb.c.updateOne({ _id: 1 }, { $set: { a: 2 }, $pop: { tags: 1 } }));
assert.commandWorked(tdb.c.replaceOne({ _id: 1 }, { b: 1 }));
assert.commandWorked(tdb.c.deleteOne({ _id: 1 }));

const inserted = nextEvent(stream);
assert.eq(inserted.operationType, "insert");
assert.docEq(inserted.fullDocument, { _id: 1, a: 1, tags: ["x", "y"] });
assert.docEq(inserted.ns, { db: "shell_change_streams", coll: "c" });
assert.docEq(inserted.documentKey, { _id: 1 });
assert(inserted.clusterTime instanceof Timestamp, "clusterTime is a Timestamp");
const updated = nextEvent(stream);
assert.eq(updated.operationType, "update");
assert.docEq(updated.updateDescription, {
  updatedFields: { a: 2 }, removedFields: [], truncatedArrays: [{ field: "tags", newSize: 1 }],
});
const replaced = nextEvent(stream);
assert.eq(replaced.operationType, "replace");
assert.docEq(replaced.fullDocument, { _id: 1, b: 1 });
const deleted = nextEvent(stream);
assert.eq(deleted.operationType, "delete");
assert.docEq(deleted.documentKey, { _id: 1 });

// Resuming after the update replays what followed it, nothing before.
const resumed = tdb.c.watch([], { resumeAfter: updated._id, maxAwaitTimeMS: 200 });
assert.eq(nextEvent(resumed).operationType, "replace");
assert.eq(nextEvent(resumed).operationType, "delete");
resumed.close();

// A $match stage on the stream.
const onlyBig = tdb.c.watch([{ $match: { "fullDocument.n": { $gte: 10 } } }], { maxAwaitTimeMS: 200 });
assert.commandWorked(tdb.c.insertMany([{ _id: 2, n: 1 }, { _id: 3, n: 10 }, { _id: 4, n: 20 }]));
assert.eq(nextEvent(onlyBig).documentKey._id, 3);
assert.eq(nextEvent(onlyBig).documentKey._id, 4);
onlyBig.close();

// Dropping the collection ends its streams.
assert(tdb.c.drop());
let op;
do {
  op = nextEvent(stream).operationType;
} while (op === "insert");
assert.eq(op, "drop");
assert.eq(nextEvent(stream).operationType, "invalidate");
stream.close();

// Bad options answer MongoDB's codes.
assert.commandFailedWithCode(
  commandReply(tdb, { aggregate: "c", pipeline: [{ $changeStream: { fullDocument: "nope" } }], cursor: {} }), 2);
assert.commandFailedWithCode(
  commandReply(tdb, { aggregate: "c", pipeline: [{ $changeStream: {} }, { $sort: { x: 1 } }], cursor: {} }), 20);
assert.throwsWithCode(() => tdb.c.watch([], { resumeAfter: { _data: "01FFFFFFF0000000010000000000" } }).tryNext(), 280);
// A committed transaction's events carry its lsid and txnNumber; an
// aborted one's never appear.
const tx = tdb.tx.watch([], { maxAwaitTimeMS: 200 });
const session = db.getMongo().startSession();
const stx = session.getDatabase("shell_change_streams").tx;
session.startTransaction();
stx.insertOne({ _id: "aborted" });
session.abortTransaction();
session.startTransaction();
stx.insertOne({ _id: "a" });
stx.insertOne({ _id: "b" });
session.commitTransaction();
const first = nextEvent(tx);
const second = nextEvent(tx);
assert.eq([first.documentKey._id, second.documentKey._id], ["a", "b"]);
for (const e of [first, second]) {
  assert(e.txnNumber !== undefined, "txnNumber in " + EJSON.stringify(e));
  assert(e.lsid !== undefined && e.lsid.id !== undefined, "lsid in " + EJSON.stringify(e));
  assert.eq(e.lsid.id.toString("hex"), session.id.id.toString("hex"));
}
assert.eq(first.txnNumber.toString(), second.txnNumber.toString());
assert.eq(tx.tryNext(), null);
tx.close();
session.endSession();

// "Watch from my write": a write's operationTime is the clusterTime of its
// event, and startAtOperationTime is inclusive, so the stream opens on it.
// Reads and no-op writes do not advance the clock.
for (let i = 0; i < 20; ++i) {
  const written = tdb.runCommand({ insert: "c", documents: [{ _id: "own" + i }] });
  assert.commandWorked(written);
  const own = tdb.c.watch([], { startAtOperationTime: written.operationTime, maxAwaitTimeMS: 200 });
  const e = nextEvent(own);
  assert.eq(e.documentKey._id, "own" + i);
  assert.eq(e.clusterTime.toString(), written.operationTime.toString());
  own.close();
}
const read1 = tdb.runCommand({ find: "c", filter: { _id: "none" } });
const noop = tdb.runCommand({ update: "c", updates: [{ q: { _id: "none" }, u: { $set: { x: 1 } } }] });
const read2 = tdb.runCommand({ find: "c", filter: { _id: "none" } });
assert.eq(noop.nModified, 0);
assert.eq(read1.operationTime.toString(), read2.operationTime.toString());
print("change streams: ok");
