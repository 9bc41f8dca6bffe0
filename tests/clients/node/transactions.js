// Transactions through the Node.js driver 6.x against a one-member replica
// set (with-server starts the server with TIGERDOC_SERVER_ARGS="--replSet
// rs0"; the driver discovers the set through ?replicaSet=rs0):
//  - 8 clients run session.withTransaction concurrently on one counter:
//    every transaction reads the counter, logs what it read and increments
//    it. The outcome must be that of some serial execution: the counter
//    equals the number of committed transactions and the values read are
//    exactly 0..N-1, each once (no lost increment, no two transactions
//    reading the same state). The driver's retry loop must have been
//    exercised (write conflicts answered 112 with TransientTransactionError).
//  - abortTransaction, and a withTransaction whose callback throws, leave
//    nothing: documents, updates, deletes and collections created inside.
//  - MongoDB 7's refusals: $out in a transaction (263), a conflicting write
//    (112 WriteConflict, label TransientTransactionError).
'use strict';
const assert = require('node:assert/strict');
const { MongoClient, MongoServerError } = require('mongodb');

const kWriters = 8;
const kPerWriter = 25;

function uri() {
  const base = process.env.TIGERDOC_URI;
  assert.ok(base && base.startsWith('mongodb://'), 'TIGERDOC_URI must be a mongodb:// URI');
  return base + '?replicaSet=rs0';
}

async function concurrentWithTransaction(db) {
  await db.collection('counter').insertOne({ _id: 1, n: 0 });
  let attempts = 0;
  let transientErrors = 0;
  const writer = async (w) => {
    const client = new MongoClient(uri());
    await client.connect();
    try {
      const counter = client.db(db.databaseName).collection('counter');
      const log = client.db(db.databaseName).collection('log');
      for (let i = 0; i < kPerWriter; ++i) {
        const session = client.startSession();
        try {
          await session.withTransaction(async () => {
            ++attempts;
            try {
              const { n } = await counter.findOne({ _id: 1 }, { session });
              await log.insertOne({ _id: `${w}-${i}`, read: n }, { session });
              await counter.updateOne({ _id: 1 }, { $inc: { n: 1 } }, { session });
            } catch (e) {
              if (e instanceof MongoServerError && e.hasErrorLabel('TransientTransactionError')) {
                assert.equal(e.code, 112, `transient error ${e.code} ${e.message}`);
                ++transientErrors;
              }
              throw e;
            }
          });
        } finally {
          await session.endSession();
        }
      }
    } finally {
      await client.close();
    }
  };
  await Promise.all(Array.from({ length: kWriters }, (_, w) => writer(w)));

  const total = kWriters * kPerWriter;
  assert.equal((await db.collection('counter').findOne({ _id: 1 })).n, total, 'lost increments');
  const reads = (await db.collection('log').find().toArray()).map((d) => d.read).sort((a, b) => a - b);
  assert.equal(reads.length, total);
  assert.deepEqual(reads, Array.from({ length: total }, (_, i) => i),
                   'the values read are not those of a serial execution');
  assert.ok(attempts >= total);
  console.log(`withTransaction: ${total} committed by ${kWriters} writers in ${attempts} attempts ` +
              `(${transientErrors} TransientTransactionError retries)`);
  // Conflicts on one counter from 8 writers are certain; the retry path ran.
  assert.ok(transientErrors > 0, 'no write conflict seen: the test did not exercise the retry loop');
}

async function abortLeavesNothing(client, db) {
  const items = db.collection('items');
  await items.insertMany([{ _id: 1, v: 'a' }, { _id: 2, v: 'b' }]);
  const before = await items.find().sort({ _id: 1 }).toArray();

  const session = client.startSession();
  session.startTransaction();
  await items.insertOne({ _id: 3, v: 'c' }, { session });
  await items.updateOne({ _id: 1 }, { $set: { v: 'changed' } }, { session });
  await items.deleteOne({ _id: 2 }, { session });
  await db.collection('born_in_txn').insertOne({ _id: 1 }, { session });
  await db.createCollection('created_in_txn', { session });
  assert.equal(await items.countDocuments({}, { session }), 2);  // the transaction sees its own writes
  assert.deepEqual(await items.find().sort({ _id: 1 }).toArray(), before);  // others do not
  await session.abortTransaction();
  await session.endSession();

  assert.deepEqual(await items.find().sort({ _id: 1 }).toArray(), before);
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  assert.ok(!names.includes('born_in_txn'), `aborted transaction left born_in_txn: ${names}`);
  assert.ok(!names.includes('created_in_txn'), `aborted transaction left created_in_txn: ${names}`);

  // A callback that throws: withTransaction aborts and rethrows.
  const thrower = client.startSession();
  await assert.rejects(thrower.withTransaction(async () => {
    await items.insertOne({ _id: 4 }, { session: thrower });
    await db.collection('born_in_txn2').insertOne({ _id: 1 }, { session: thrower });
    throw new Error('callback failed');
  }), /callback failed/);
  await thrower.endSession();
  assert.deepEqual(await items.find().sort({ _id: 1 }).toArray(), before);
  const after = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  assert.ok(!after.includes('born_in_txn2'), `aborted withTransaction left born_in_txn2: ${after}`);
}

async function mongoDb7Refusals(client, db) {
  const src = db.collection('src');
  await src.insertOne({ _id: 1 });
  const session = client.startSession();
  session.startTransaction();
  await assert.rejects(src.aggregate([{ $out: 'copy' }], { session }).toArray(), (e) => {
    assert.equal(e.code, 263);
    assert.equal(e.codeName, 'OperationNotSupportedInTransaction');
    assert.equal(e.message, '$out cannot be used in a transaction');
    return true;
  });
  await session.abortTransaction().catch(() => {});  // already aborted by the server
  await session.endSession();

  // Two transactions write the same document: the second gets 112 with the label.
  const a = client.startSession();
  const b = client.startSession();
  a.startTransaction();
  b.startTransaction();
  await src.updateOne({ _id: 1 }, { $set: { by: 'a' } }, { session: a });
  await assert.rejects(src.updateOne({ _id: 1 }, { $set: { by: 'b' } }, { session: b }), (e) => {
    assert.equal(e.code, 112);
    assert.equal(e.codeName, 'WriteConflict');
    assert.ok(e.hasErrorLabel('TransientTransactionError'), `labels: ${e.errorLabels}`);
    return true;
  });
  await a.commitTransaction();
  await b.abortTransaction().catch(() => {});
  await a.endSession();
  await b.endSession();
  assert.equal((await src.findOne({ _id: 1 })).by, 'a');
}

async function main() {
  const client = new MongoClient(uri());
  await client.connect();
  try {
    const db = client.db('node_transactions');
    await db.dropDatabase();
    await concurrentWithTransaction(db);
    await abortLeavesNothing(client, db);
    await mongoDb7Refusals(client, db);
  } finally {
    await client.close();
  }
  console.log('node transactions: all checks passed');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
