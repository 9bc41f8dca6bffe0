// mongosh against `tigerdoc --replSet rs0` connected with ?replicaSet=rs0:
// the driver sees a replica set primary, so sessions, retryable writes and
// session.withTransaction work. An order insert and the customer's counter
// bump commit together (the WebStore article's stored procedure); an
// aborted transaction leaves nothing; a statement in a transaction sees its
// own writes while others see none until commit.
load(__dirname + "/../lib/assert.js");

const hello = db.hello();
assert.eq(hello.setName, "rs0", "setName: " + EJSON.stringify(hello));
assert.eq(hello.isWritablePrimary, true);
const status = rs.status();
assert.eq(status.members.length, 1);
assert.eq(status.members[0].stateStr, "PRIMARY");
assert.eq(rs.conf()._id, "rs0");

const name = "shell_replset_transactions";
const tdb = db.getSiblingDB(name);
assert.commandWorked(tdb.dropDatabase());
assert.commandWorked(tdb.customers.insertOne({ _id: "c1", salesOrderCount: 0 }));
assert.commandWorked(tdb.createCollection("orders"));

// withTransaction over two collections.
const session = db.getMongo().startSession();
const sdb = session.getDatabase(name);
for (let i = 1; i <= 5; i++) {
  session.withTransaction(() => {
    sdb.orders.insertOne({ _id: i, customerId: "c1", total: 10 * i });
    sdb.customers.updateOne({ _id: "c1" }, { $inc: { salesOrderCount: 1 } });
  });
}
assert.eq(tdb.orders.countDocuments({}), 5);
assert.eq(tdb.customers.findOne({ _id: "c1" }).salesOrderCount, 5);

// Inside an open transaction: own writes visible, others see nothing.
session.startTransaction({ readConcern: { level: "snapshot" }, writeConcern: { w: "majority" } });
sdb.orders.insertOne({ _id: 6, customerId: "c1", total: 60 });
sdb.customers.updateOne({ _id: "c1" }, { $inc: { salesOrderCount: 1 } });
assert.eq(sdb.orders.countDocuments({}), 6, "the transaction sees its own insert");
assert.eq(tdb.orders.countDocuments({}), 5, "others do not see an uncommitted insert");
assert.eq(tdb.customers.findOne({ _id: "c1" }).salesOrderCount, 5);
session.abortTransaction();
assert.eq(tdb.orders.countDocuments({}), 5, "abort left the insert");
assert.eq(tdb.customers.findOne({ _id: "c1" }).salesOrderCount, 5, "abort left the update");

// An error inside withTransaction aborts everything the callback did.
let thrown = null;
try {
  session.withTransaction(() => {
    sdb.orders.insertOne({ _id: 7, customerId: "c1" });
    sdb.customers.updateOne({ _id: "c1" }, { $inc: { salesOrderCount: 1 } });
    sdb.orders.insertOne({ _id: 1 });  // duplicate key
  });
} catch (e) {
  thrown = e;
}
assert(thrown !== null, "the duplicate key must surface");
assert.eq(thrown.code, 11000, EJSON.stringify(thrown));
assert.eq(tdb.orders.countDocuments({}), 5);
assert.eq(tdb.customers.findOne({ _id: "c1" }).salesOrderCount, 5);

// DDL other than create is refused inside a transaction (MongoDB 7).
session.startTransaction();
assert.throwsWithCode(() => sdb.runCommand({ drop: "orders" }), 263);
try { session.abortTransaction(); } catch (e) { /* already aborted by the refusal */ }
assert.eq(tdb.orders.countDocuments({}), 5, "the refused drop dropped nothing");
session.endSession();

// Retryable writes are on by default against a replica set.
assert.commandWorked(tdb.customers.updateOne({ _id: "c1" }, { $inc: { salesOrderCount: 1 } }));
assert.eq(tdb.customers.findOne({ _id: "c1" }).salesOrderCount, 6);
print("ok");
