// Size limits per document, logical partition and shard (patterns/README.md,
// "size_limits"): configured with db.createCollection and collMod, seen in
// getCollectionInfos() and stats(), and every refusal's code, codeName and
// message. Cosmos DB's limits (2 MB documents, 20 GB partitions) are one
// createCollection away.
load(__dirname + "/../lib/assert.js");

const tdb = db.getSiblingDB("shell_size_limits");
assert.commandWorked(tdb.dropDatabase());

const reply = (cmd) => commandReply(tdb, cmd);  // lib/assert.js
const pad = (n) => "x".repeat(n);
// The collStats command: its `patterns.sizeLimits` holds what the pattern
// reports for the whole collection. mongosh's db.c.stats() builds its answer
// from $collStats, which answers one document per shard: it shows each
// shard's part under `shards.<name>.patterns.sizeLimits`.
function collStats(name) {
  return assert.commandWorked(tdb.runCommand({ collStats: name }));
}

// --- Configure: Cosmos DB's limits, visible in listCollections and stats ----
{
  assert.commandWorked(tdb.createCollection("orders", {
    shardKey: { customerId: 1 },
    maxDocumentBytes: 2 * 1000 * 1000,
    maxPartitionBytes: 20 * 1000 * 1000 * 1000,
  }));
  const info = tdb.getCollectionInfos({ name: "orders" })[0];
  assert.eq(Number(info.options.maxDocumentBytes), 2000000, "listCollections shows maxDocumentBytes");
  assert.eq(Number(info.options.maxPartitionBytes), 20000000000, "listCollections shows maxPartitionBytes");
  tdb.orders.insertOne({ customerId: "c1", total: 10 });
  const stats = collStats("orders");
  const limits = stats.patterns.sizeLimits;
  assert.eq(Number(limits.maxDocumentBytes), 2000000, "stats shows the document limit");
  assert.eq(Number(limits.maxPartitionBytes), 20000000000, "stats shows the partition limit");
  assert.eq(limits.largestPartitions[0].key, { customerId: "c1" }, "largest partition");
  assert.eq(Number(limits.largestPartitions[0].count), 1, "its count");
  // The same through db.c.stats(): the partition's shard reports it.
  const shellStats = tdb.orders.stats();
  const home = shellStats.shards["shard" + limits.largestPartitions[0].shard].patterns.sizeLimits;
  assert.eq(Number(home.maxPartitionBytes), 20000000000, "stats() shows the partition limit");
  assert.eq(home.largestPartitions[0].key, { customerId: "c1" }, "stats() shows the partition");
  assert.eq(Number(home.count), 1, "stats() shows the shard's count");
}

// --- Bad options: 2 BadValue, 14 TypeMismatch, 9 FailedToParse, 40415 --------
{
  let res = assert.commandFailedWithCode(reply({ create: "bad", maxDocumentBytes: 100 }), 2, "too small");
  assert.eq(res.codeName, "BadValue");
  assert(res.errmsg.includes("create.maxDocumentBytes") && res.errmsg.includes("1024"), res.errmsg);
  res = assert.commandFailedWithCode(reply({ create: "bad", maxDocumentBytes: 32 * 1024 * 1024 }), 2, "too large");
  res = assert.commandFailedWithCode(reply({ create: "bad", maxPartitionBytes: "20GB" }), 14, "a string");
  assert.eq(res.codeName, "TypeMismatch");
  res = assert.commandFailedWithCode(reply({ create: "bad", maxShardBytes: 4096.5 }), 9, "fractional");
  assert.eq(res.codeName, "FailedToParse");
  res = assert.commandFailedWithCode(reply({ create: "bad", maxPartitonBytes: 4096 }), 40415, "misspelt");
  assert(res.errmsg.includes("maxPartitonBytes"), res.errmsg);
  res = assert.commandFailedWithCode(reply({ collMod: "orders", maxShardBytes: 0 }), 2, "collMod range");
  assert(res.errmsg.includes("collMod.maxShardBytes"), res.errmsg);
  assert.eq(tdb.getCollectionInfos({ name: "bad" }).length, 0, "nothing created");
}

// --- Document limit: 10334 on insert, 17419 on update -----------------------
{
  assert.commandWorked(tdb.createCollection("docs", { maxDocumentBytes: 2048 }));
  assert.commandWorked(tdb.runCommand({ insert: "docs", documents: [{ _id: 1, s: pad(1000) }] }));
  let res = tdb.runCommand({ insert: "docs", documents: [{ _id: 2, s: pad(3000) }] });
  assert.eq(res.writeErrors[0].code, 10334, "document over maxDocumentBytes");
  assert(res.writeErrors[0].errmsg.includes("max size: 2048"), res.writeErrors[0].errmsg);
  res = tdb.runCommand({ update: "docs", updates: [{ q: { _id: 1 }, u: { $set: { t: pad(1100) } } }] });
  assert.eq(res.writeErrors[0].code, 17419, "update over maxDocumentBytes");
  assert(res.writeErrors[0].errmsg.includes("larger than 2048"), res.writeErrors[0].errmsg);
  assert.commandFailedWithCode(() => tdb.docs.insertOne({ _id: 3, s: pad(3000) }), 10334, "insertOne throws");
}

// --- Partition limit via collMod: 91000001 PartitionSizeLimitExceeded --------
{
  assert.commandWorked(tdb.createCollection("events", { shardKey: { tenant: 1 } }));
  for (let i = 0; i < 3; i++) tdb.events.insertOne({ _id: i, tenant: "t1", body: pad(1000) });
  assert.commandWorked(tdb.runCommand({ collMod: "events", maxPartitionBytes: 4096 }));
  assert.eq(Number(tdb.getCollectionInfos({ name: "events" })[0].options.maxPartitionBytes), 4096);
  const used = Number(collStats("events").patterns.sizeLimits.largestPartitions[0].size);
  assert.eq(used, bsonsize(tdb.events.findOne({ _id: 0 })) * 3, "counters built from existing data");
  // Ordered batch: stops at the first refusal; unordered: goes on.
  let res = tdb.runCommand({ insert: "events", documents: [
    { _id: 10, tenant: "t1", body: pad(1000) }, { _id: 11, tenant: "t2", body: pad(10) }] });
  assert.eq(res.n, 0, "ordered stops");
  assert.eq(res.writeErrors[0].code, 91000001, "partition code");
  const msg = res.writeErrors[0].errmsg;
  assert(msg.includes('partition { tenant: "t1" } of shell_size_limits.events would reach') &&
         msg.includes("maxPartitionBytes: 4096"), msg);
  res = tdb.runCommand({ insert: "events", ordered: false, documents: [
    { _id: 10, tenant: "t1", body: pad(1000) }, { _id: 11, tenant: "t2", body: pad(10) }] });
  assert.eq(res.n, 1, "unordered goes on");
  res = assert.commandFailedWithCode(reply({ findAndModify: "events", query: { _id: 0 }, update: { $set: { more: pad(2000) } } }),
    91000001, "findAndModify");
  assert.eq(res.codeName, "PartitionSizeLimitExceeded");
  // Deleting frees space.
  tdb.events.deleteOne({ _id: 0 });
  assert.commandWorked(tdb.runCommand({ insert: "events", documents: [{ _id: 10, tenant: "t1", body: pad(1000) }] }));
}

// --- Shard limit: 91000002 ShardSizeLimitExceeded -----------------------------
{
  assert.commandWorked(tdb.createCollection("small", { shards: 1, maxShardBytes: 5000 }));
  tdb.small.insertOne({ _id: 1, s: pad(4000) });
  const res = assert.commandFailedWithCode(
    reply({ findAndModify: "small", query: { _id: 2 }, update: { $set: { s: pad(1000) } }, upsert: true }),
    91000002, "shard limit");
  assert.eq(res.codeName, "ShardSizeLimitExceeded");
  assert(res.errmsg.includes("shard 0 of shell_size_limits.small would reach") &&
         res.errmsg.includes("maxShardBytes: 5000"), res.errmsg);
  const shards = collStats("small").patterns.sizeLimits.shards;
  assert.eq(Number(shards[0].count), 1, "shard count");
  // Raising the limit with collMod lets the write in.
  assert.commandWorked(tdb.runCommand({ collMod: "small", maxShardBytes: 10000 }));
  tdb.small.insertOne({ _id: 2, s: pad(1000) });
  assert.eq(Number(collStats("small").patterns.sizeLimits.shards[0].count), 2);
}

print("size_limits.js: ok");
