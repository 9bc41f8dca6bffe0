// The client scenario (tests/clients/README.md) through the Mongoose ODM,
// plus Mongoose's discriminators over one collection that tigerdoc's own
// `discriminator` option guards. Run by tests/clients/with-server, which
// sets TIGERDOC_URI.
'use strict';
const assert = require('node:assert/strict');
const mongoose = require('mongoose');
const { MongoBulkWriteError, MongoServerError } = mongoose.mongo;

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

// Collections are created by the scenario with tigerdoc's options, so
// Mongoose must not create them (or their indexes) on its own first.
const schemaOptions = { versionKey: false, autoCreate: false, autoIndex: false };
const Customer = mongoose.model('Customer',
    new mongoose.Schema({ _id: String, name: String }, { ...schemaOptions, collection: 'customers' }));
const orderSchema = new mongoose.Schema(
    { _id: Number, customer: String, status: String, total: Number, note: String, pad: String },
    { ...schemaOptions, collection: 'orders' });
orderSchema.index({ status: 1, total: -1 }, { name: 'status_total' });
const Order = mongoose.model('Order', orderSchema);
const Page = mongoose.model('Page',
    new mongoose.Schema({ _id: Number, i: Number }, { ...schemaOptions, collection: 'pages' }));
// Mongoose's discriminators: one collection, the type in `kind`.
const Party = mongoose.model('Party',
    new mongoose.Schema({ name: String }, { ...schemaOptions, collection: 'parties', discriminatorKey: 'kind' }));
const Buyer = Party.discriminator('Buyer', new mongoose.Schema({ tier: String }, schemaOptions));
const Vendor = Party.discriminator('Vendor', new mongoose.Schema({ vendorCode: String }, schemaOptions));

async function main() {
  const uri = process.env.TIGERDOC_URI;
  assert.ok(uri && uri.startsWith('mongodb://'), 'TIGERDOC_URI must be a mongodb:// URI');
  await mongoose.connect(uri, { dbName: 'scenario_mongoose', autoCreate: false, autoIndex: false });
  try {
    const db = mongoose.connection.db;
    await db.dropDatabase();

    // 1. create with tigerdoc's options
    await Customer.createCollection();
    await Order.createCollection({ shardKey: { customer: 1 }, shards: 3, maxDocumentBytes: 2048 });
    const [info] = await db.listCollections({ name: 'orders' }).toArray();
    assert.deepEqual(info.options.shardKey, { customer: 1 });
    assert.equal(info.options.maxDocumentBytes, 2048);

    // 2. CRUD
    const many = await Customer.insertMany(
        [{ _id: 'c1', name: 'Ada' }, { _id: 'c2', name: 'Bo' }, { _id: 'c3', name: 'Cy' }]);
    assert.equal(many.length, 3);
    await Order.create({ _id: 1, customer: 'c1', status: 'open', total: 10 });
    assert.equal((await Order.findById(1)).total, 10);
    assert.equal((await Order.updateOne({ _id: 1 }, { $inc: { total: 5 } })).modifiedCount, 1);
    const replaced = await Order.replaceOne(
        { _id: 1 }, { customer: 'c1', status: 'open', total: 15, note: 'replaced' });
    assert.equal(replaced.modifiedCount, 1);
    assert.equal((await Order.findById(1).lean()).note, 'replaced');
    assert.equal((await Customer.deleteOne({ _id: 'c3' })).deletedCount, 1);

    // 3. bulk writes with a duplicate key, ordered and unordered
    await expectRejects(Order.bulkWrite([
      { insertOne: { document: { _id: 2, customer: 'c1', status: 'open', total: 20 } } },
      { insertOne: { document: { _id: 2, customer: 'c1', status: 'open', total: 20 } } },
      { insertOne: { document: { _id: 3, customer: 'c2', status: 'closed', total: 30 } } },
    ], { ordered: true }), MongoBulkWriteError, (e) => {
      assert.equal(e.code, 11000);
      assert.equal(e.writeErrors.length, 1);
      assert.equal(e.writeErrors[0].index, 1);
      assert.equal(e.result.insertedCount, 1);
    });
    assert.equal(await Order.findById(3), null);
    await expectRejects(Order.bulkWrite([
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
    const after = await Order.findOneAndUpdate({ _id: 4 }, { $set: { status: 'shipped' } }, { new: true });
    assert.equal(after.status, 'shipped');
    assert.equal(after.total, 40);

    // 5. index create (from the schema) / list / drop
    await Order.createIndexes();
    let indexes = await Order.listIndexes();
    assert.ok(indexes.some((i) => i.name === '_id_'));
    assert.deepEqual(indexes.find((i) => i.name === 'status_total').key, { status: 1, total: -1 });
    await Order.collection.dropIndex('status_total');
    indexes = await Order.listIndexes();
    assert.ok(!indexes.some((i) => i.name === 'status_total'));

    // 6. aggregate with $lookup and $group
    const totals = await Order.aggregate([
      { $lookup: { from: 'customers', localField: 'customer', foreignField: '_id', as: 'c' } },
      { $unwind: '$c' },
      { $group: { _id: '$c.name', total: { $sum: '$total' }, n: { $sum: 1 } } },
      { $sort: { _id: 1 } },
    ]);
    assert.deepEqual(totals, [{ _id: 'Ada', total: 35, n: 2 }, { _id: 'Bo', total: 70, n: 2 }]);

    // 7. a cursor paging past one batch
    await Page.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: i, i })));
    const seen = [];
    for await (const doc of Page.find({}).sort({ _id: 1 }).batchSize(40).cursor()) seen.push(doc.i);
    assert.deepEqual(seen, Array.from({ length: 250 }, (_, i) => i));

    // 8. counts
    assert.equal(await Order.countDocuments({ status: 'open' }), 2);
    assert.equal(await Order.estimatedDocumentCount(), 4);

    // 9. distinct
    assert.deepEqual((await Order.distinct('customer')).sort(), ['c1', 'c2']);

    // 10. explain: one shard of three read for the shard key
    let plan = await Order.find({ customer: 'c1' }).explain();
    if (Array.isArray(plan)) plan = plan[0];
    assert.ok(plan.queryPlanner, JSON.stringify(plan));
    assert.equal(plan.sharding.targeted, true);
    assert.equal(plan.sharding.numShards, 3);
    assert.equal(plan.sharding.shardsRead.length, 1);

    // 11. server error codes as the driver exposes them
    await expectRejects(Order.create({ _id: 5, customer: 'c1', pad: 'x'.repeat(3000) }),
        MongoServerError, (e) => assert.equal(e.code, 10334));
    await expectRejects(db.command({ tigerdocNoSuchCommand: 1 }), MongoServerError, (e) => {
      assert.equal(e.code, 59);
      assert.equal(e.codeName, 'CommandNotFound');
    });

    // Mongoose's discriminators over one collection that tigerdoc's
    // discriminator option guards: the server knows the same two types and
    // requires a vendorCode of every Vendor, which the Mongoose schema does not.
    await Party.createCollection({ discriminator: { field: 'kind', required: true, types: {
      Buyer: {}, Vendor: { vendorCode: { $exists: true } } } } });
    await Buyer.create({ name: 'Dee', tier: 'gold' });
    await Buyer.create({ name: 'Eli', tier: 'silver' });
    await Vendor.create({ name: 'Fay', vendorCode: 'V-1' });
    await expectRejects(Vendor.create({ name: 'Gus' }), MongoServerError, (e) => {
      assert.equal(e.code, 121);
      assert.equal(e.errInfo.discriminator.field, 'kind', JSON.stringify(e.errInfo));
      assert.equal(e.errInfo.discriminator.value, 'Vendor');
    });
    await expectRejects(db.collection('parties').insertOne({ name: 'Hal', kind: 'Reseller' }),
        MongoServerError, (e) => assert.equal(e.code, 121));
    const parties = await Party.find({}).sort({ name: 1 });
    assert.deepEqual(parties.map((p) => [p.name, p.constructor.modelName]),
        [['Dee', 'Buyer'], ['Eli', 'Buyer'], ['Fay', 'Vendor']]);
    assert.equal(parties[2].vendorCode, 'V-1');
    assert.equal(await Buyer.countDocuments(), 2);
    assert.equal(await Vendor.countDocuments(), 1);
    const stats = await db.command({ collStats: 'parties' });
    assert.equal(stats.patterns.discriminator.types.Buyer.count, 2);
    assert.equal(stats.patterns.discriminator.types.Vendor.count, 1);
    console.log('mongoose scenario: PASS');
  } finally {
    await mongoose.disconnect();
  }
}

main().catch((e) => {
  console.error('mongoose scenario: FAIL:', e);
  process.exit(1);
});
