// The archive pattern (patterns/README.md, "archive"): the reference's
// client-side archive (find + insertMany + deleteMany) and its getOrder
// fallback as written, then the built-in `archive` command that does the
// same move crash-safely in the server (metadata, whenMatched modes, the
// union view that makes getOrder one findOne, the archive's indexes), the
// scheduled collection option, and the move seen and stopped through
// db.currentOp() / db.killOp().
load(__dirname + "/../lib/assert.js");

db = db.getSiblingDB("shell_archive");
assert.commandWorked(db.dropDatabase());
const reply = (cmd) => commandReply(db, cmd);  // lib/assert.js

const DAY = 86400 * 1000;
// 60 orders: every third one 120 days old, statuses cycling through five.
function seedOrders(coll) {
  const statuses = ["delivered", "cancelled", "refunded", "processing", "shipped"];
  const docs = [];
  for (let i = 0; i < 60; i++) {
    docs.push({
      _id: i,
      customerId: "c" + (i % 7),
      status: statuses[i % 5],
      orderDate: new Date(Date.now() - (i % 3 === 0 ? 120 : 10) * DAY),
      total: i * 10,
    });
  }
  assert.commandWorked(db[coll].insertMany(docs));
}
// The orders the reference moves: older than 90 days, finished.
const expectedIds = [];
for (let i = 0; i < 60; i++) {
  if (i % 3 === 0 && i % 5 < 3) expectedIds.push(i);
}

// --- The reference, as written ---------------------------------------------
seedOrders("orders");
db.orders.createIndex({ status: 1, orderDate: -1 });

// Active orders (last 90 days), fast queries and small indexes
db.orders.find({
  status: "processing"
}).sort({ orderDate: -1 });

// Archive process: move old completed orders
async function archiveOldOrders() {
  const ninetyDaysAgo = new Date();
  ninetyDaysAgo.setDate(ninetyDaysAgo.getDate() - 90);

  const ordersToArchive = await db.orders.find({
    orderDate: { $lt: ninetyDaysAgo },
    status: { $in: ["delivered", "cancelled", "refunded"] }
  }).toArray();

  if (ordersToArchive.length === 0) return;

  // Add archive metadata and insert into archive
  const archived = ordersToArchive.map(o => ({
    ...o, archivedAt: new Date(), archiveReason: "age_based"
  }));

  await db.ordersArchive.insertMany(archived);
  await db.orders.deleteMany({
    _id: { $in: ordersToArchive.map(o => o._id) }
  });
}

async function getOrder(orderId) {
  let order = await db.orders.findOne({ _id: orderId });
  if (!order) {
    order = await db.ordersArchive.findOne({ _id: orderId });
  }
  return order;
}

// The reference's functions are async; a mongosh script cannot await at
// its top level, so wait for each promise while sleeping (mongosh's sleep
// lets the event loop run the promise's database calls).
function settle(promise) {
  let state = { done: false };
  promise.then((v) => { state = { done: true, value: v }; },
               (e) => { state = { done: true, error: e }; });
  // A generous deadline: a loaded CI machine (ASan, shared cores) is slow.
  const deadline = Date.now() + 60000;
  while (!state.done && Date.now() < deadline) sleep(10);
  if (!state.done) throw new Error("promise did not settle");
  if (state.error) throw state.error;
  return state.value;
}

settle(archiveOldOrders());
assert.eq(db.ordersArchive.countDocuments({}), expectedIds.length, "the reference moved the old finished orders");
assert.eq(db.orders.countDocuments({}), 60 - expectedIds.length);
assert.eq(db.ordersArchive.find({}, { _id: 1 }).sort({ _id: 1 }).toArray().map((d) => d._id), expectedIds);
assert.eq(settle(getOrder(0)).archiveReason, "age_based", "getOrder falls back to the archive");
assert.eq(settle(getOrder(1)).status, "cancelled", "getOrder finds an active order first");
assert.eq(settle(getOrder(1)).archiveReason, undefined);

// --- Built in: one command, the same result ---------------------------------
seedOrders("orders2");
db.orders2.createIndex({ status: 1, orderDate: -1 });
db.orders2.createIndex({ customerId: 1 });
{
  const res = assert.commandWorked(db.runCommand({
    archive: "orders2",
    to: "orders2Archive",
    filter: { status: { $in: ["delivered", "cancelled", "refunded"] } },
    olderThan: { field: "orderDate", seconds: 90 * 86400 },
    set: { archivedAt: "$$NOW", archiveReason: "age_based" },
    batchSize: 4,
    unionView: "orders2All",
  }));
  assert.eq(res.moved, expectedIds.length, "moved");
  assert.eq(res.batches, Math.ceil(expectedIds.length / 4), "batches of batchSize");
  assert.eq(db.orders2Archive.find({}, { _id: 1 }).sort({ _id: 1 }).toArray().map((d) => d._id), expectedIds,
            "the same orders as the reference's client-side move");
  assert.eq(db.orders2.countDocuments({}), 60 - expectedIds.length);
  // $$NOW is one instant for the whole command.
  const stamps = db.orders2Archive.distinct("archivedAt");
  assert.eq(stamps.length, 1, "one archivedAt for every document of a move");
  assert(stamps[0] instanceof Date, "archivedAt is a date");
  assert.eq(db.orders2Archive.countDocuments({ archiveReason: "age_based" }), expectedIds.length);
  // The archive was created with the source's indexes.
  const names = db.orders2Archive.getIndexes().map((i) => i.name).sort();
  assert.eq(names, ["_id_", "customerId_1", "status_1_orderDate_-1"]);
  // getOrder is one findOne on the union view, active or archived.
  assert.eq(db.orders2All.findOne({ _id: 0 }).archiveReason, "age_based");
  assert.eq(db.orders2All.findOne({ _id: 1 }).status, "cancelled");
  assert.eq(db.orders2All.countDocuments({}), 60);
  const view = db.getCollectionInfos({ name: "orders2All" })[0];
  assert.eq(view.type, "view");
  assert.eq(view.options.viewOn, "orders2");
  assert.eq(view.options.pipeline, [{ $unionWith: "orders2Archive" }]);
  // Running it again finds nothing left to move.
  const again = assert.commandWorked(db.runCommand({
    archive: "orders2", to: "orders2Archive",
    filter: { status: { $in: ["delivered", "cancelled", "refunded"] } },
    olderThan: { field: "orderDate", seconds: 90 * 86400 },
  }));
  assert.eq([again.moved, again.batches], [0, 0]);
}

// --- whenMatched: fail (default), keepExisting, replace ----------------------
{
  assert.commandWorked(db.src.insertMany([{ _id: 1, v: "new" }, { _id: 2, v: "new" }, { _id: 3, v: "new" }]));
  assert.commandWorked(db.dst.insertOne({ _id: 2, v: "old" }));
  // fail: MongoDB's $merge duplicate key error; the batch holding _id 2 is
  // rolled back, the batches before it stay moved and the reply says so.
  let res = reply({ archive: "src", to: "dst", batchSize: 1 });
  assert.commandFailedWithCode(res, 11000);
  assert(/E11000 duplicate key error collection: shell_archive\.dst index: _id_/.test(res.errmsg), res.errmsg);
  assert(/earlier batches stay moved/.test(res.errmsg), res.errmsg);
  assert.eq(db.src.countDocuments({}) + db.dst.countDocuments({}), 4, "nothing lost, nothing doubled");
  assert.eq(db.src.countDocuments({ _id: 2 }), 1, "the failed batch stayed in the source");
  // keepExisting: the archived copy wins, the source's copy is removed.
  res = assert.commandWorked(db.runCommand({ archive: "src", to: "dst", whenMatched: "keepExisting", filter: { _id: 2 } }));
  assert.eq(res.moved, 1);
  assert.docEq(db.dst.findOne({ _id: 2 }), { _id: 2, v: "old" });
  // replace: the source's copy wins.
  assert.commandWorked(db.src.insertOne({ _id: 2, v: "newer" }));
  res = assert.commandWorked(db.runCommand({ archive: "src", to: "dst", whenMatched: "replace" }));
  assert.docEq(db.dst.findOne({ _id: 2 }), { _id: 2, v: "newer" });
  assert.eq(db.src.countDocuments({}), 0);
  assert.eq(db.dst.countDocuments({}), 3);
}

// --- Bad input: MongoDB-style errors naming the field -------------------------
assert.commandFailedWithCode(reply({ archive: "orders2", to: "x", batchSize: 25001 }), 2);
assert.commandFailedWithCode(reply({ archive: "orders2", to: "x", batchSize: 0 }), 2);
assert.commandFailedWithCode(reply({ archive: "orders2", to: "x", batchSize: "1" }), 14);
assert.commandFailedWithCode(reply({ archive: "orders2", to: "orders2" }), 2);
assert.commandFailedWithCode(reply({ archive: "orders2", to: "orders2All" }), 166);
assert.commandFailedWithCode(reply({ archive: "orders2", to: "system.profile" }), 2);
assert.commandFailedWithCode(reply({ archive: "orders2", to: "x", whenMatched: "discard" }), 2);
assert.commandFailedWithCode(reply({ archive: "orders2", to: "x", olderThan: { field: "d" } }), 40414);
assert.commandFailedWithCode(reply({ archive: "orders2", to: "x", nope: 1 }), 40415);
assert.commandFailedWithCode(reply({ archive: "orders2" }), 40414);
{
  const res = reply({ archive: "orders2", to: "x", batchSize: 25001 });
  assert(/'archive\.batchSize'.*25000/.test(res.errmsg), res.errmsg);
}

// --- The scheduled option, and the move in db.currentOp() / db.killOp() -----
{
  assert.commandWorked(db.createCollection("events", {
    archive: { to: "eventsArchive", filter: { done: true }, batchSize: 1, every: 1, unionView: "eventsAll" },
  }));
  const info = db.getCollectionInfos({ name: "events" })[0];
  assert.eq(info.options.archive.to, "eventsArchive", "listCollections shows the option");
  assert.eq(info.options.archive.every, 1);
  assert.eq(info.options.archive.batchSize, 1);
  // 20,000 events a batch of one at a time: long enough to watch.
  const docs = [];
  for (let i = 0; i < 20000; i++) docs.push({ _id: i, done: true });
  assert.commandWorked(db.events.insertMany(docs));
  // The archive monitor's thread runs the move on its own time: waited for
  // with a generous deadline (a loaded machine may start it late).
  let op;
  const seenBy = Date.now() + 60000;
  while (!op && Date.now() < seenBy) {
    const ops = db.currentOp({ "command.archive": "events", "archive.moved": { $gte: 10 } }).inprog;
    if (ops.length > 0) op = ops[0];
    else sleep(50);
  }
  assert(op, "the scheduled move shows in db.currentOp()");
  assert.eq(op.desc, "ArchiveMonitor");
  assert.eq(op.ns, "shell_archive.events");
  assert.eq(op.archive.target, "shell_archive.eventsArchive");
  assert.gte(op.archive.batches, 10);
  assert.eq(typeof op.opid, "number");
  assert.commandWorked(db.killOp(op.opid));
  // Stop the schedule too, then look: whole batches only, nothing lost.
  assert.commandWorked(db.runCommand({ collMod: "events", archive: null }));
  const endedBy = Date.now() + 60000;
  while (db.currentOp({ "command.archive": "events" }).inprog.length > 0 && Date.now() < endedBy) sleep(50);
  assert.eq(db.currentOp({ "command.archive": "events" }).inprog.length, 0, "the killed move ended");
  const archived = db.eventsArchive.countDocuments({});
  assert(archived > 0 && archived < 20000, "killOp stopped the move part way: " + archived);
  assert.eq(db.events.countDocuments({}) + archived, 20000);
  assert.eq(db.eventsAll.countDocuments({}), 20000, "the union view reads both");
  assert.eq(db.getCollectionInfos({ name: "events" })[0].options.archive, undefined, "collMod removed it");
  // Option errors name the option's field.
  assert.commandFailedWithCode(reply({ collMod: "events", archive: { to: "a" } }), 40414);
  assert.commandFailedWithCode(reply({ collMod: "events", archive: { to: "a", every: 0 } }), 2);
  assert.commandFailedWithCode(reply({ collMod: "events", archive: { to: "events", every: 5 } }), 2);
  assert.commandFailedWithCode(reply({ collMod: "events", archive: { to: "a", every: 5, bogus: 1 } }), 40415);
}

// --- Ordinary commands are operations too --------------------------------------
{
  const self = db.getSiblingDB("admin").aggregate([{ $currentOp: {} }, { $match: { "command.aggregate": 1 } }]).toArray();
  assert.eq(self.length, 1, "the $currentOp aggregation sees itself");
  assert.eq(self[0].ns, "admin.$cmd");
  assert.eq(self[0].op, "command");
  assert.commandFailedWithCode(commandReply(db, { aggregate: 1, pipeline: [{ $currentOp: {} }], cursor: {} }), 73);
  assert.commandWorked(db.killOp(123456789), "killOp of no operation answers ok");
  assert.commandFailedWithCode(commandReply(db.getSiblingDB("admin"), { killOp: 1 }), 40414);
  assert.commandFailedWithCode(commandReply(db.getSiblingDB("admin"), { killOp: 1, op: "x" }), 14);
}

print("archive.js: ok");
