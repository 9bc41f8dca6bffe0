// Writes to a capped collection inside a multi-document transaction are
// refused as MongoDB 7 does (263 for insert/update/findAndModify, 20 for
// delete) and abort the transaction; reads of it, and writes to other
// collections, work. Runs against the --replSet rs0 server.
load(__dirname + "/../lib/assert.js");

const name = "shell_capped_txn";
const tdb = db.getSiblingDB(name);
assert.commandWorked(tdb.dropDatabase());
assert.commandWorked(tdb.runCommand({ create: "log", capped: true, size: 100000 }));
assert.commandWorked(tdb.log.insertOne({ _id: 1, a: 1 }));
assert.commandWorked(tdb.plain.insertOne({ _id: 1 }));

const session = db.getMongo().startSession();
const sdb = session.getDatabase(name);
const refusedMessage = "Collection '" + name + ".log' is a capped collection. " +
                       "Writes in transactions are not allowed on capped collections.";

function inTransaction(cmd) {
  session.startTransaction();
  let res;
  try {
    res = sdb.runCommand(cmd);
  } catch (e) {
    res = { ok: 0, code: e.code, errmsg: e.message };  // inside a transaction the driver throws
  }
  try { session.abortTransaction(); } catch (e) { /* already aborted by the refusal */ }
  return res;
}

let res = inTransaction({ insert: "log", documents: [{ _id: 2 }] });
assert.eq(res.writeErrors[0].code, 263, EJSON.stringify(res));
assert.eq(res.writeErrors[0].errmsg, refusedMessage);
res = inTransaction({ update: "log", updates: [{ q: { _id: 1 }, u: { $set: { a: 2 } } }] });
assert.eq(res.writeErrors[0].code, 263, EJSON.stringify(res));
res = inTransaction({ delete: "log", deletes: [{ q: { _id: 1 }, limit: 1 }] });
assert.eq(res.writeErrors[0].code, 20, EJSON.stringify(res));
res = inTransaction({ findAndModify: "log", query: { _id: 1 }, update: { $set: { a: 3 } } });
assert.eq(res.code, 263, EJSON.stringify(res));
assert.eq(res.errmsg, refusedMessage);
assert.eq(tdb.log.find().toArray(), [{ _id: 1, a: 1 }], "nothing was written");

// Reading a capped collection and writing another one in a transaction work.
session.startTransaction();
assert.eq(sdb.log.find().toArray().length, 1);
assert.commandWorked(sdb.plain.insertOne({ _id: 2 }));
session.commitTransaction();
assert.eq(tdb.plain.countDocuments({}), 2);
session.endSession();
print("capped_in_transaction: ok");
