// The single collection pattern (reference: five-schema-patterns.txt, "Apply
// the single collection pattern"): first the article's example as written,
// then the built-in version (patterns/README.md, "discriminator"): declared
// types, per-type validators, refusals with code/codeName/errInfo, per-type
// counts, and collMod rules.
load(__dirname + "/../lib/assert.js");

const tdb = db.getSiblingDB("shell_single_collection");
assert.commandWorked(tdb.dropDatabase());
const reply = (cmd) => commandReply(tdb, cmd);  // lib/assert.js
const events = [
  { type: "user.login", userId: "user123", timestamp: ISODate("2026-04-15T10:00:00Z"),
    data: { ipAddress: "192.168.1.100" } },
  { type: "order.created", userId: "user123", orderId: "order456",
    timestamp: ISODate("2026-04-15T10:05:00Z"), data: { total: 299.99, status: "pending" } },
  { type: "payment.processed", userId: "user123", orderId: "order456",
    timestamp: ISODate("2026-04-15T10:06:00Z"), data: { amount: 299.99, method: "credit_card" } },
];

// --- The article, as written --------------------------------------------------
{
  tdb.events.insertMany(events.map((e) => Object.assign({}, e)));
  const timeline = tdb.events.find({ userId: "user123" }).sort({ timestamp: -1 }).toArray();
  assert.eq(timeline.map((e) => e.type), ["payment.processed", "order.created", "user.login"]);
  const orders = tdb.events.find({ type: { $regex: /^order\./ }, userId: "user123" })
    .sort({ timestamp: -1 }).toArray();
  assert.eq(orders.length, 1);
  tdb.events.createIndex({ userId: 1, timestamp: -1 });
  tdb.events.createIndex({ type: 1, timestamp: -1 });
}

// --- Built in: the server knows the types --------------------------------------
{
  assert.commandWorked(tdb.createCollection("events2", {
    discriminator: {
      field: "type",
      types: {
        "user.login": { userId: { $type: "string" } },
        "order.*": { orderId: { $exists: true } },
        "payment.processed": { $jsonSchema: { required: ["orderId", "data"],
          properties: { data: { required: ["amount"], properties: { amount: { minimum: 0 } } } } } },
      },
    },
  }));
  const c = tdb.events2;
  c.createIndex({ type: 1, timestamp: -1 });
  c.insertMany(events.map((e) => Object.assign({}, e)));
  const info = tdb.getCollectionInfos({ name: "events2" })[0];
  assert.eq(info.options.discriminator.field, "type", "listCollections shows the option");

  // An undeclared type: 121 with errInfo naming the field, value and types.
  let res = c.runCommand("insert", { documents: [{ type: "payment.failed", orderId: "o1" }] });
  let e = res.writeErrors[0];
  assert.eq(e.code, 121);
  assert.eq(e.errInfo.details.value, "payment.failed");
  assert.eq(e.errInfo.details.declaredTypes, ["user.login", "order.*", "payment.processed"]);
  assert(e.errmsg.includes("is not a declared type"), e.errmsg);
  // A missing discriminator.
  res = c.runCommand("insert", { documents: [{ userId: "u" }] });
  assert.eq(res.writeErrors[0].code, 121);
  assert(res.writeErrors[0].errmsg.includes("field 'type' is missing"), res.writeErrors[0].errmsg);
  // A type's validator: order.* needs an orderId; payment's $jsonSchema a positive amount.
  res = c.runCommand("insert", { documents: [{ type: "order.shipped", userId: "u" }] });
  assert.eq(res.writeErrors[0].errInfo.discriminator.type, "order.*");
  res = assert.commandFailedWithCode(reply({ findAndModify: "events2", query: { type: "payment.processed" },
    update: { $set: { "data.amount": -1 } } }), 121, "payment validator");
  assert.eq(res.codeName, "DocumentValidationFailure");
  assert.eq(res.errInfo.details.operatorName, "$jsonSchema");

  // Per-type counts, exact.
  const stats = assert.commandWorked(tdb.runCommand({ collStats: "events2" }));
  const types = stats.patterns.discriminator.types;
  assert.eq(Number(types["order.*"].count), 1);
  assert.eq(Number(types["payment.processed"].count), 1);
  // db.c.stats() (mongosh builds it from $collStats, one document per shard)
  // shows each shard's per-type counts under shards.<name>.patterns; they add
  // up to the collection's.
  const shellStats = c.stats();
  assert.eq(Object.keys(shellStats.shards).length, 4, "stats() lists the 4 shards");
  let perType = {};
  for (const shard of Object.values(shellStats.shards)) {
    for (const [type, counts] of Object.entries(shard.patterns.discriminator.types)) {
      perType[type] = (perType[type] || 0) + Number(counts.count);
    }
  }
  for (const [type, counts] of Object.entries(types)) {
    assert.eq(perType[type], Number(counts.count), "stats() shards add up for " + type);
  }
  assert.eq(shellStats.count, Number(stats.count), "stats() count");
  // Queries on the type use the {type, timestamp} index.
  const plan = c.find({ type: "order.created" }).explain();
  assert(JSON.stringify(plan).includes("type_1_timestamp_-1"), "index used");

  // collMod adds a type; removing one that documents use is refused unless moderate.
  assert.commandWorked(tdb.runCommand({ collMod: "events2", discriminator: { field: "type", types: {
    "user.login": {}, "order.*": {}, "payment.*": {} } } }));
  c.insertOne({ type: "payment.failed", orderId: "o2" });
  res = assert.commandFailedWithCode(reply({ collMod: "events2", discriminator: { field: "type",
    types: { "order.*": {}, "payment.*": {} } } }), 121, "removing a used type");
  assert(res.errmsg.includes('validationLevel: "moderate"'), res.errmsg);
}

print("single_collection.js: ok");
