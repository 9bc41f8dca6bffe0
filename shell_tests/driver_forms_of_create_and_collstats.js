// Forms drivers send that mongod accepts (found by tests/clients): the Java
// driver 3.6 sends `capped: false` with every create, and the Go driver 1.8
// counts with [{$collStats: {count: {}}}, {$group: {_id: 1, n: {$sum: "$count"}}}]
// (estimatedDocumentCount against servers of wire version >= 12).
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_driver_forms");
assert.commandWorked(tdb.dropDatabase());

// capped: false is the default: accepted, and not shown as an option.
assert.commandWorked(tdb.runCommand({ create: "plain", capped: false, shardKey: { k: 1 }, shards: 3 }));
const info = tdb.getCollectionInfos({ name: "plain" })[0];
assert.eq(info.options.capped, undefined, "capped: false is not kept: " + EJSON.stringify(info));
assert.eq(info.options.shards, 3);
// capped: true makes a capped collection (capped_collections.js has the rest).
assert.commandWorked(tdb.runCommand({ create: "capped", capped: true, size: 4096 }));
assert.eq(tdb.getCollectionInfos({ name: "capped" })[0].options, { capped: true, size: 4096 });

// $collStats {count: {}}: one document per shard, counts summing to the total.
const docs = [];
for (let i = 0; i < 101; i++) docs.push({ _id: i, k: i % 7 });
tdb.plain.insertMany(docs);
const perShard = tdb.plain.aggregate([{ $collStats: { count: {} } }]).toArray();
assert.eq(perShard.length, 3, EJSON.stringify(perShard));
assert.eq(perShard.reduce((sum, d) => sum + Number(d.count), 0), 101);
assert.eq(perShard[0].storageStats, undefined, "only the sections asked for");
const summed = tdb.plain.aggregate([{ $collStats: { count: {} } },
                                    { $group: { _id: 1, n: { $sum: "$count" } } }]).toArray();
assert.eq(Number(summed[0].n), 101);
// storageStats when asked for, with count beside it.
const both = tdb.plain.aggregate([{ $collStats: { count: {}, storageStats: {} } }]).toArray();
assert.eq(both.reduce((sum, d) => sum + Number(d.storageStats.count), 0), 101);
assert.eq(both.reduce((sum, d) => sum + Number(d.count), 0), 101);
// Not an object: MongoDB's 5447000.
assert.commandFailedWithCode(commandReply(tdb, { aggregate: "plain", pipeline: [{ $collStats: 1 }], cursor: {} }),
                             5447000, "$collStats: 1");
print("driver_forms_of_create_and_collstats: ok");
