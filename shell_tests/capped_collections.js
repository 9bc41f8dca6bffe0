// Capped collections as MongoDB 7: create's rules for capped/size/max, the
// options listCollections and collStats show, isCapped(), insertion order,
// the oldest documents removed past `max` or `size`, tailable and awaitData
// cursors, CappedPositionLost, and convertToCapped.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_capped");
assert.commandWorked(tdb.dropDatabase());

// --- create: options as MongoDB 7 lists them (no rounding of size).
assert.commandWorked(tdb.runCommand({ create: "log", capped: true, size: 100000, max: 5 }));
assert.eq(tdb.getCollectionInfos({ name: "log" })[0].options, { capped: true, size: 100000, max: 5 });
assert.eq(tdb.log.isCapped(), true, "isCapped()");
assert.commandWorked(tdb.runCommand({ create: "plain" }));
assert.eq(tdb.plain.isCapped(), false, "a plain collection is not capped");
const stats = tdb.runCommand({ collStats: "log" });
assert.eq(stats.capped, true);
assert.eq(stats.max, 5);
assert.eq(stats.maxSize, 100000);
// max 0 or negative: no limit, listed as 2^31-1.
assert.commandWorked(tdb.runCommand({ create: "nomax", capped: true, size: 4096, max: 0 }));
assert.eq(tdb.getCollectionInfos({ name: "nomax" })[0].options.max, 2147483647);

// --- create: refusals with MongoDB's codes and messages.
function refused(cmd, code, message) {
  const res = commandReply(tdb, cmd);
  assert.commandFailedWithCode(res, code, EJSON.stringify(cmd));
  if (message !== undefined) assert.eq(res.errmsg, message, EJSON.stringify(cmd));
}
refused({ create: "bad", capped: true }, 72, "the 'size' field is required when 'capped' is true");
refused({ create: "bad", capped: true, max: 5 }, 72, "the 'size' field is required when 'capped' is true");
refused({ create: "bad", size: 4096 }, 72,
        "the 'capped' field needs to be true when either the 'size' or 'max' fields are present");
refused({ create: "bad", capped: true, size: 0 }, 51024, "BSON field 'size' value must be >= 1, actual value '0'");
refused({ create: "bad", capped: true, size: -5 }, 51024, "BSON field 'size' value must be >= 1, actual value '-5'");
// 1 PB is the largest size; one byte more is refused.
assert.commandWorked(tdb.runCommand({ create: "petabyte", capped: true, size: 1125899906842624 }));
refused({ create: "bad", capped: true, size: 1125899906842625 }, 51024,
        "BSON field 'size' value must be <= 1125899906842624, actual value '1125899906842625'");
refused({ create: "bad", capped: true, size: 4096, max: 2147483648 }, 51024,
        "BSON field 'max' value must be < 2147483648, actual value '2147483648'");
refused({ create: "bad", capped: true, size: "big" }, 14);
refused({ create: "bad", capped: "yes", size: 4096 }, 14);
// tigerdoc's own rule: a capped collection is one shard.
refused({ create: "bad", capped: true, size: 4096, shards: 4 }, 72);
assert.eq(tdb.getCollectionInfos({ name: "bad" }).length, 0, "nothing was created");

// --- insertion order and eviction by max: at max-1, max, max+many.
for (let i = 0; i < 4; i++) tdb.log.insertOne({ _id: 100 - i, i: i });
assert.eq(tdb.log.find().toArray().map((d) => d.i), [0, 1, 2, 3], "natural order is insertion order");
tdb.log.insertOne({ _id: 50, i: 4 });
assert.eq(tdb.log.countDocuments({}), 5, "at max nothing is removed");
tdb.log.insertMany([5, 6, 7, 8, 9, 10, 11].map((i) => ({ _id: 200 + i, i: i })));
assert.eq(tdb.log.find().toArray().map((d) => d.i), [7, 8, 9, 10, 11], "the oldest went first");
assert.eq(tdb.log.find().sort({ $natural: -1 }).toArray().map((d) => d.i), [11, 10, 9, 8, 7],
          "$natural: -1 is newest first");
assert.eq(tdb.log.find().hint({ $natural: -1 }).limit(1).toArray()[0].i, 11);

// Deletes and updates that change a document's size are allowed (MongoDB 6.0+).
assert.eq(tdb.log.deleteOne({ i: 9 }).deletedCount, 1);
assert.eq(tdb.log.updateOne({ i: 8 }, { $set: { pad: "x".repeat(500) } }).modifiedCount, 1);
assert.eq(tdb.log.find().toArray().map((d) => d.i), [7, 8, 10, 11], "an update keeps its place");

// --- eviction by size: each document is 1000 bytes of BSON.
assert.commandWorked(tdb.runCommand({ create: "bytes", capped: true, size: 5000 }));
function doc1000(i) {
  const d = { _id: i, s: "" };
  d.s = "y".repeat(1000 - bsonsize(d));
  return d;
}
assert.eq(bsonsize(doc1000(1)), 1000);
for (let i = 0; i < 5; i++) tdb.bytes.insertOne(doc1000(i));
assert.eq(tdb.bytes.countDocuments({}), 5, "exactly at size: all kept");
tdb.bytes.insertOne(doc1000(5));
assert.eq(tdb.bytes.find().toArray().map((d) => d._id), [1, 2, 3, 4, 5], "one over size: the oldest goes");
// A document larger than the whole collection is refused, and nothing is removed.
const big = { _id: "big", s: "z".repeat(6000) };
assert.throwsWithCode(() => tdb.bytes.insertOne(big), 2);
assert.eq(tdb.bytes.countDocuments({}), 5);

// --- tailable cursors.
refused({ find: "plain", tailable: true }, 2);
assert.commandWorked(tdb.runCommand({ create: "tail", capped: true, size: 1000000 }));
tdb.tail.insertMany([{ _id: 1 }, { _id: 2 }]);
const first = tdb.runCommand({ find: "tail", tailable: true, awaitData: true, batchSize: 10 });
assert.commandWorked(first);
assert.eq(first.cursor.firstBatch.map((d) => d._id), [1, 2]);
assert.neq(first.cursor.id, 0, "a tailable cursor stays open at the end");
const cursorId = first.cursor.id;
// Nothing new: an awaitData getMore waits maxTimeMS, then returns an empty batch.
const started = Date.now();
let more = tdb.runCommand({ getMore: cursorId, collection: "tail", maxTimeMS: 300 });
assert.commandWorked(more);
assert.eq(more.cursor.nextBatch.length, 0);
assert.gte(Date.now() - started, 250, "the getMore waited");
tdb.tail.insertOne({ _id: 3 });
more = tdb.runCommand({ getMore: cursorId, collection: "tail", maxTimeMS: 1000 });
assert.eq(more.cursor.nextBatch.map((d) => d._id), [3], "only what came after");
// A non-awaitData tailable cursor takes no maxTimeMS on getMore.
const plainTail = tdb.runCommand({ find: "tail", tailable: true });
assert.commandFailedWithCode(commandReply(tdb, { getMore: plainTail.cursor.id, collection: "tail", maxTimeMS: 10 }), 2);

// A tailable cursor follows natural order forward only.
refused({ find: "tail", tailable: true, sort: { $natural: -1 } }, 2);
refused({ find: "tail", tailable: true, sort: { _id: 1 } }, 2);
assert.commandWorked(tdb.runCommand({ find: "tail", tailable: true, sort: { $natural: 1 } }));

// CappedPositionLost: the document the cursor stood on was removed to make room.
assert.commandWorked(tdb.runCommand({ create: "small", capped: true, size: 100000, max: 3 }));
tdb.small.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]);
const lost = tdb.runCommand({ find: "small", tailable: true, batchSize: 10 });
assert.eq(lost.cursor.firstBatch.length, 3);
tdb.small.insertMany([{ _id: 4 }, { _id: 5 }, { _id: 6 }, { _id: 7 }]);
assert.commandFailedWithCode(commandReply(tdb, { getMore: lost.cursor.id, collection: "small" }), 136);

// --- convertToCapped keeps natural order and applies the size.
assert.commandWorked(tdb.runCommand({ create: "conv", shards: 1 }));  // natural order = _id order
tdb.conv.insertMany([1, 2, 3, 4, 5].map((i) => doc1000(i)));
assert.commandWorked(tdb.runCommand({ convertToCapped: "conv", size: 3000 }));
assert.eq(tdb.conv.isCapped(), true);
assert.eq(tdb.conv.find().toArray().map((d) => d._id), [3, 4, 5], "the newest that fit");
assert.eq(tdb.getCollectionInfos({ name: "conv" })[0].options, { capped: true, size: 3000 });
refused({ convertToCapped: "missing", size: 1000 }, 26);
refused({ convertToCapped: "conv" }, 40414);

print("capped_collections: ok");
