// A transaction started from mongosh against the standalone server writes
// nothing: the server refuses every statement carrying txnNumber /
// autocommit / startTransaction with a standalone mongod's answer (20
// IllegalOperation), so an abandoned or aborted transaction leaves no trace.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_transactions_standalone");
assert.commandWorked(tdb.dropDatabase());
assert.commandWorked(tdb.accounts.insertOne({ _id: 1, balance: 100 }));

const session = db.getMongo().startSession();
const sdb = session.getDatabase("shell_transactions_standalone");
let refused = null;
try {
  session.startTransaction();
  sdb.accounts.updateOne({ _id: 1 }, { $inc: { balance: -50 } });
  sdb.accounts.insertOne({ _id: 2, balance: 50 });
  session.commitTransaction();
} catch (e) {
  refused = e;
}
try { session.abortTransaction(); } catch (e) { /* nothing to abort */ }
session.endSession();

assert(refused !== null, "a transaction on a standalone must fail");
// The driver may refuse on its own before sending; when the server answered,
// it is MongoDB's standalone answer.
if (refused.code !== undefined) {
  assert.eq(refused.code, 20, "code: " + EJSON.stringify(refused));
  assert.eq(refused.codeName, "IllegalOperation", EJSON.stringify(refused));
}
assert.eq(tdb.accounts.findOne({ _id: 1 }).balance, 100, "the update inside the transaction was applied");
assert.eq(tdb.accounts.countDocuments({}), 1, "the insert inside the transaction was applied");

// Sent directly, as any driver would inside a transaction.
let res;
try {
  res = tdb.runCommand({ insert: "accounts", documents: [{ _id: 3 }], lsid: { id: UUID() },
                         txnNumber: NumberLong("1"), autocommit: false, startTransaction: true });
} catch (e) {
  res = { ok: 0, code: e.code, codeName: e.codeName, errmsg: e.errmsg };
}
assert.eq(res.ok, 0, EJSON.stringify(res));
assert.eq(res.code, 20, EJSON.stringify(res));
assert.eq(res.errmsg, "Transaction numbers are only allowed on a replica set member or mongos", EJSON.stringify(res));
assert.eq(tdb.accounts.countDocuments({}), 1);
