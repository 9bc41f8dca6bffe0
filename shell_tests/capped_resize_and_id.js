// Capped collections, issue #19: collMod of cappedSize / cappedMax (MongoDB
// 6.0+: the new limits apply from the next insert, which evicts the oldest
// documents past them), finds by _id answered through the _id index
// (IDHACK) instead of a scan, and autoIndexId: false refused as MongoDB 7
// refuses it outside the `local` database.
load(__dirname + "/lib/assert.js");

const cdb = db.getSiblingDB("shell_capped_resize");
// mongosh's runCommand throws on ok: 0; commandReply returns the reply either way.
const run = (cmd) => commandReply(cdb, cmd);
assert.commandWorked(cdb.dropDatabase());
const c = cdb.capped;
const kDoc = 10 * 1024;  // each document is a little over 10 KB
const pad = "a".repeat(kDoc);
function fill(n) {
  for (let i = 0; i < n; i++) assert.commandWorked(c.insert({ pad }));
}
function maxSize() { return c.stats().maxSize; }

assert.commandWorked(cdb.createCollection("capped", { capped: true, size: 25 * 1024 }));
fill(5);
assert.eq(c.countDocuments({}), 2);

// Growing: more documents fit after it.
assert.commandWorked(run({ collMod: "capped", cappedSize: 50 * 1024 }));
assert.eq(maxSize(), 50 * 1024);
assert.eq(c.countDocuments({}), 2);  // nothing changes until the next insert
fill(5);
assert.eq(c.countDocuments({}), 4);
// Shrinking: nothing is removed by collMod itself, the next insert evicts.
assert.commandWorked(run({ collMod: "capped", cappedSize: 25 * 1024 }));
assert.eq(c.countDocuments({}), 4);
fill(1);
assert.eq(c.countDocuments({}), 2);
assert(c.stats().size <= 25 * 1024);
// Below one document: the oldest go until the newest alone is left.
assert.commandWorked(run({ collMod: "capped", cappedSize: 256 }));
assert.commandFailedWithCode(() => c.insert({ pad }), 2);  // larger than the collection itself
assert.commandWorked(c.insert({ small: 1 }));
assert.eq(c.countDocuments({}), 1);
// Limits: cappedSize in [1, 1 PB], cappedMax below 2^31.
let res = run({ collMod: "capped", cappedSize: 0 });
assert.commandFailedWithCode(res, 51024);
assert.eq(res.errmsg, "BSON field 'cappedSize' value must be >= 1, actual value '0'");
assert.commandWorked(run({ collMod: "capped", cappedSize: 1 }));
assert.commandFailedWithCode(run({ collMod: "capped", cappedSize: -25 }), 51024);
assert.commandWorked(run({ collMod: "capped", cappedSize: Math.pow(2, 50) }));
assert.commandFailedWithCode(run({ collMod: "capped", cappedSize: Math.pow(2, 50) + 1 }), 51024);
res = run({ collMod: "capped", cappedSize: "big" });
assert.commandFailedWithCode(res, 14);
assert.eq(res.errmsg,
          "BSON field 'collMod.cappedSize' is the wrong type 'string', expected types '[long, int, decimal, double']");
assert.commandFailedWithCode(run({ collMod: "capped", cappedMax: Math.pow(2, 31) }), 51024);
assert.commandWorked(run({ collMod: "capped", cappedMax: Math.pow(2, 31) - 1 }));
// A collection that is not capped, or none at all.
assert.commandWorked(cdb.createCollection("plain"));
res = run({ collMod: "plain", cappedSize: 1024 });
assert.commandFailedWithCode(res, 72);
assert.eq(res.errmsg, "Collection must be capped.");
assert.commandFailedWithCode(run({ collMod: "nothing", cappedMax: 5 }), 26);

// cappedMax: raising and lowering the count, 0 or negative meaning none.
assert.commandWorked(cdb.createCollection("counted", { capped: true, size: 1024 * 1024, max: 2 }));
const counted = cdb.counted;
for (let i = 0; i < 5; i++) assert.commandWorked(counted.insert({ _id: i }));
assert.eq(counted.find().toArray().map((d) => d._id), [3, 4]);
assert.commandWorked(run({ collMod: "counted", cappedMax: 4 }));
assert.eq(counted.stats().max, 4);
for (let i = 5; i < 10; i++) assert.commandWorked(counted.insert({ _id: i }));
assert.eq(counted.find().toArray().map((d) => d._id), [6, 7, 8, 9]);
assert.commandWorked(run({ collMod: "counted", cappedMax: 3, cappedSize: 2048 }));
assert.commandWorked(counted.insert({ _id: 10 }));
assert.eq(counted.find().toArray().map((d) => d._id), [8, 9, 10]);
assert.commandWorked(run({ collMod: "counted", cappedMax: -1 }));
assert.eq(counted.stats().max, 2147483647);
for (let i = 11; i < 20; i++) assert.commandWorked(counted.insert({ _id: i }));
assert.eq(counted.countDocuments({}), 12);
// listCollections shows the new options; they survive in the catalog row.
const opts = cdb.getCollectionInfos({ name: "counted" })[0].options;
assert.eq(opts.size, 2048);
assert.eq(opts.max, 2147483647);

// Finds by _id on a capped collection read the _id index: IDHACK, one
// document examined, insertion order kept for $in.
// The plan of the one shard a capped collection has.
const stageOf = (e) => e.queryPlanner.winningPlan.shards[0].winningPlan.stage;
const byId = counted.find({ _id: 15 }).explain("executionStats");
assert.eq(stageOf(byId), "IDHACK");
assert.eq(byId.executionStats.totalDocsExamined, 1);
assert.eq(byId.executionStats.nReturned, 1);
assert.eq(counted.find({ _id: { $in: [17, 12, 99, 15] } }).toArray().map((d) => d._id), [12, 15, 17]);
assert.eq(counted.find({ _id: 2 }).itcount(), 0);  // evicted long ago
assert.eq(counted.find({ _id: 19, x: 1 }).itcount(), 0);  // the rest of the filter still applies
assert.eq(counted.countDocuments({ _id: { $in: [11, 19] } }), 2);
// Other filters keep the scan; a tailable cursor keeps reading in order.
assert.eq(stageOf(counted.find({ _id: { $gte: 18 } }).explain()), "COLLSCAN");
assert.eq(stageOf(counted.find({ _id: 15 }).collation({ locale: "en" }).explain()), "IDHACK");  // a number
const tail = run({ find: "counted", filter: { _id: 19 }, tailable: true });
assert.commandWorked(tail);
assert.eq(tail.cursor.firstBatch.length, 1);
assert.commandWorked(run({ killCursors: "counted", cursors: [tail.cursor.id] }));

// autoIndexId: false is refused on every replicated namespace (MongoDB 7:
// 50001); true is accepted; a non-boolean is a type error.
res = run({ create: "noId", autoIndexId: false });
assert.commandFailedWithCode(res, 50001);
assert.eq(res.errmsg, "autoIndexId:false is not allowed for collection shell_capped_resize.noId because it can be replicated");
assert.commandWorked(run({ create: "withId", autoIndexId: true }));
assert.commandFailedWithCode(run({ create: "badId", autoIndexId: "no" }), 14);
// In `local` MongoDB honours it; tigerdoc cannot drop the _id index and says so.
assert.commandFailedWithCode(commandReply(db.getSiblingDB("local"), { create: "noIdHere", autoIndexId: false }), 238);

print("capped_resize_and_id.js passed");
