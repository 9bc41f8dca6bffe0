// The client scenario (tests/clients/README.md) through the Node.js driver
// 6.x. Run by tests/clients/with-server, which sets TIGERDOC_URI.
'use strict';
const assert = require('node:assert/strict');
const { MongoClient, MongoBulkWriteError, MongoServerError } = require('mongodb');

async function expectRejects(promise, ErrorType, check) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof ErrorType, `expected ${ErrorType.name}, got ${e && e.constructor.name}: ${e}`);
    check(e);
    return;
  }
  assert.fail(`expected ${ErrorType.name}`);
}

async function main() {
  const uri = process.env.TIGERDOC_URI;
  assert.ok(uri && uri.startsWith('mongodb://'), 'TIGERDOC_URI must be a mongodb:// URI');
  const client = new MongoClient(uri);  // the driver's defaults
  await client.connect();
  try {
    const db = client.db('scenario_node');
    await db.dropDatabase();

    // 1. create with tigerdoc's options
    const customers = await db.createCollection('customers');
    const orders = await db.createCollection('orders',
        { shardKey: { customer: 1 }, shards: 3, maxDocumentBytes: 2048 });
    const [info] = await db.listCollections({ name: 'orders' }).toArray();
    assert.deepEqual(info.options.shardKey, { customer: 1 });
    assert.equal(info.options.maxDocumentBytes, 2048);

    // 2. CRUD
    const many = await customers.insertMany(
        [{ _id: 'c1', name: 'Ada' }, { _id: 'c2', name: 'Bo' }, { _id: 'c3', name: 'Cy' }]);
    assert.equal(many.insertedCount, 3);
    await orders.insertOne({ _id: 1, customer: 'c1', status: 'open', total: 10 });
    assert.equal((await orders.findOne({ _id: 1 })).total, 10);
    assert.equal((await orders.updateOne({ _id: 1 }, { $inc: { total: 5 } })).modifiedCount, 1);
    const replaced = await orders.replaceOne(
        { _id: 1 }, { customer: 'c1', status: 'open', total: 15, note: 'replaced' });
    assert.equal(replaced.modifiedCount, 1);
    assert.equal((await orders.findOne({ _id: 1 })).note, 'replaced');
    assert.equal((await customers.deleteOne({ _id: 'c3' })).deletedCount, 1);

    // 3. bulk writes with a duplicate key, ordered and unordered
    await expectRejects(orders.bulkWrite([
      { insertOne: { document: { _id: 2, customer: 'c1', status: 'open', total: 20 } } },
      { insertOne: { document: { _id: 2, customer: 'c1', status: 'open', total: 20 } } },
      { insertOne: { document: { _id: 3, customer: 'c2', status: 'closed', total: 30 } } },
    ], { ordered: true }), MongoBulkWriteError, (e) => {
      assert.equal(e.code, 11000);
      assert.equal(e.writeErrors.length, 1);
      assert.equal(e.writeErrors[0].index, 1);
      assert.equal(e.writeErrors[0].code, 11000);
      assert.equal(e.result.insertedCount, 1);
    });
    assert.equal(await orders.findOne({ _id: 3 }), null);
    await expectRejects(orders.bulkWrite([
      { insertOne: { document: { _id: 3, customer: 'c2', status: 'closed', total: 30 } } },
      { insertOne: { document: { _id: 2, customer: 'c1', status: 'open', total: 20 } } },
      { insertOne: { document: { _id: 4, customer: 'c2', status: 'open', total: 40 } } },
    ], { ordered: false }), MongoBulkWriteError, (e) => {
      assert.equal(e.writeErrors.length, 1);
      assert.equal(e.writeErrors[0].index, 1);
      assert.equal(e.writeErrors[0].code, 11000);
      assert.equal(e.result.insertedCount, 2);
    });

    // 4. findOneAndUpdate, the document after
    const after = await orders.findOneAndUpdate(
        { _id: 4 }, { $set: { status: 'shipped' } }, { returnDocument: 'after' });
    assert.equal(after.status, 'shipped');
    assert.equal(after.total, 40);

    // 5. index create / list / drop
    assert.equal(await orders.createIndex({ status: 1, total: -1 }, { name: 'status_total' }), 'status_total');
    let indexes = await orders.listIndexes().toArray();
    assert.ok(indexes.some((i) => i.name === '_id_'));
    assert.deepEqual(indexes.find((i) => i.name === 'status_total').key, { status: 1, total: -1 });
    await orders.dropIndex('status_total');
    indexes = await orders.listIndexes().toArray();
    assert.ok(!indexes.some((i) => i.name === 'status_total'));

    // 6. aggregate with $lookup and $group
    const totals = await orders.aggregate([
      { $lookup: { from: 'customers', localField: 'customer', foreignField: '_id', as: 'c' } },
      { $unwind: '$c' },
      { $group: { _id: '$c.name', total: { $sum: '$total' }, n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ]).toArray();
    assert.deepEqual(totals, [{ _id: 'Ada', total: 35, n: 2 }, { _id: 'Bo', total: 70, n: 2 }]);

    // 7. a cursor paging past one batch
    const pages = db.collection('pages');
    await pages.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: i, i })));
    const seen = [];
    for await (const doc of pages.find({}).sort({ _id: 1 }).batchSize(40)) seen.push(doc.i);
    assert.deepEqual(seen, Array.from({ length: 250 }, (_, i) => i));

    // 8. counts
    assert.equal(await orders.countDocuments({ status: 'open' }), 2);
    assert.equal(await orders.estimatedDocumentCount(), 4);

    // 9. distinct
    assert.deepEqual((await orders.distinct('customer')).sort(), ['c1', 'c2']);

    // 10. explain: one shard of three read for the shard key
    const plan = await orders.find({ customer: 'c1' }).explain();
    assert.ok(plan.queryPlanner, JSON.stringify(plan));
    assert.equal(plan.sharding.targeted, true);
    assert.equal(plan.sharding.numShards, 3);
    assert.equal(plan.sharding.shardsRead.length, 1);

    // 11. server error codes as the driver exposes them
    await expectRejects(orders.insertOne({ _id: 5, customer: 'c1', pad: 'x'.repeat(3000) }),
        MongoServerError, (e) => assert.equal(e.code, 10334));
    await expectRejects(db.command({ tigerdocNoSuchCommand: 1 }), MongoServerError, (e) => {
      assert.equal(e.code, 59);
      assert.equal(e.codeName, 'CommandNotFound');
    });
    console.log('node scenario: PASS');
  } finally {
    await client.close();
  }
}

main().catch((e) => {
  console.error('node scenario: FAIL:', e);
  process.exit(1);
});
