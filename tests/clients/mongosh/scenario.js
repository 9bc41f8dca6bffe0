// The client scenario (tests/clients/README.md) through mongosh (pinned in
// shell_tests/package-lock.json), run by run.sh with the plain URI.
function check(ok, what) {
  if (!ok) throw new Error('mongosh scenario: ' + what);
}
function same(a, b, what) {
  check(EJSON.stringify(a) === EJSON.stringify(b), what + ': ' + EJSON.stringify(a) + ' != ' + EJSON.stringify(b));
}
function expectThrows(fn, what, verify) {
  let error = null;
  try { fn(); } catch (e) { error = e; }
  check(error !== null, what + ' did not throw');
  verify(error);
}
const order = (_id, customer, status, total) => ({ _id, customer, status, total });

const sdb = db.getSiblingDB('scenario_mongosh');
sdb.dropDatabase();

// 1. create with tigerdoc's options
sdb.createCollection('customers');
sdb.createCollection('orders', { shardKey: { customer: 1 }, shards: 3, maxDocumentBytes: 2048 });
const info = sdb.getCollectionInfos({ name: 'orders' })[0];
same(info.options.shardKey, { customer: 1 }, 'options.shardKey');
same(info.options.maxDocumentBytes, 2048, 'options.maxDocumentBytes');

// 2. CRUD
const customers = sdb.customers, orders = sdb.orders;
same(customers.insertMany([{ _id: 'c1', name: 'Ada' }, { _id: 'c2', name: 'Bo' }, { _id: 'c3', name: 'Cy' }])
    .insertedIds, { 0: 'c1', 1: 'c2', 2: 'c3' }, 'insertMany');
orders.insertOne(order(1, 'c1', 'open', 10));
same(orders.findOne({ _id: 1 }).total, 10, 'findOne');
same(orders.updateOne({ _id: 1 }, { $inc: { total: 5 } }).modifiedCount, 1, 'updateOne');
same(orders.replaceOne({ _id: 1 }, { customer: 'c1', status: 'open', total: 15, note: 'replaced' }).modifiedCount,
    1, 'replaceOne');
same(orders.findOne({ _id: 1 }).note, 'replaced', 'after replaceOne');
same(customers.deleteOne({ _id: 'c3' }).deletedCount, 1, 'deleteOne');

// 3. bulk writes with a duplicate key, ordered and unordered
const inserts = (...docs) => docs.map((document) => ({ insertOne: { document } }));
expectThrows(() => orders.bulkWrite(inserts(order(2, 'c1', 'open', 20), order(2, 'c1', 'open', 20),
    order(3, 'c2', 'closed', 30)), { ordered: true }), 'ordered bulkWrite', (e) => {
  same(e.name, 'MongoBulkWriteError', 'error class');
  same(e.writeErrors.map((w) => [w.index, w.code]), [[1, 11000]], 'ordered writeErrors');
  same(e.result.insertedCount, 1, 'ordered insertedCount');
});
same(orders.findOne({ _id: 3 }), null, 'ordered bulkWrite stopped at its error');
expectThrows(() => orders.bulkWrite(inserts(order(3, 'c2', 'closed', 30), order(2, 'c1', 'open', 20),
    order(4, 'c2', 'open', 40)), { ordered: false }), 'unordered bulkWrite', (e) => {
  same(e.name, 'MongoBulkWriteError', 'error class');
  same(e.writeErrors.map((w) => [w.index, w.code]), [[1, 11000]], 'unordered writeErrors');
  same(e.result.insertedCount, 2, 'unordered insertedCount');
});

// 4. findOneAndUpdate, the document after
const after = orders.findOneAndUpdate({ _id: 4 }, { $set: { status: 'shipped' } }, { returnNewDocument: true });
same([after.status, after.total], ['shipped', 40], 'findOneAndUpdate');

// 5. index create / list / drop
same(orders.createIndex({ status: 1, total: -1 }, { name: 'status_total' }), 'status_total', 'createIndex');
const indexes = orders.getIndexes();
check(indexes.some((i) => i.name === '_id_'), 'no _id_ index');
same(indexes.find((i) => i.name === 'status_total').key, { status: 1, total: -1 }, 'index key');
orders.dropIndex('status_total');
check(!orders.getIndexes().some((i) => i.name === 'status_total'), 'status_total still listed');

// 6. aggregate with $lookup and $group
same(orders.aggregate([
  { $lookup: { from: 'customers', localField: 'customer', foreignField: '_id', as: 'c' } },
  { $unwind: '$c' },
  { $group: { _id: '$c.name', total: { $sum: '$total' }, n: { $sum: 1 } } },
  { $sort: { _id: 1 } },
]).toArray(), [{ _id: 'Ada', total: 35, n: 2 }, { _id: 'Bo', total: 70, n: 2 }], 'aggregate');

// 7. a cursor paging past one batch
sdb.pages.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: i, i })));
same(sdb.pages.find().sort({ _id: 1 }).batchSize(40).toArray().map((d) => d.i),
    Array.from({ length: 250 }, (_, i) => i), 'paging');

// 8. counts
same(orders.countDocuments({ status: 'open' }), 2, 'countDocuments');
same(orders.estimatedDocumentCount(), 4, 'estimatedDocumentCount');

// 9. distinct
same(orders.distinct('customer').sort(), ['c1', 'c2'], 'distinct');

// 10. explain: one shard of three read for the shard key
const plan = orders.find({ customer: 'c1' }).explain();
check(plan.queryPlanner !== undefined, 'explain has no queryPlanner');
same([plan.sharding.targeted, plan.sharding.numShards, plan.sharding.shardsRead.length], [true, 3, 1],
    'explain sharding');

// 11. server error codes as mongosh exposes them
expectThrows(() => orders.insertOne({ _id: 5, customer: 'c1', pad: 'x'.repeat(3000) }), 'oversized insert',
    (e) => same(e.code, 10334, 'oversized insert code'));
expectThrows(() => sdb.runCommand({ tigerdocNoSuchCommand: 1 }), 'unknown command', (e) => {
  same(e.name, 'MongoServerError', 'error class');
  same([e.code, e.codeName], [59, 'CommandNotFound'], 'unknown command');
});
print('mongosh scenario: PASS');
