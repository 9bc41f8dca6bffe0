// The WebStore of webstore-relational-to-documents.txt, moved from nine
// relational tables to its three final containers, on tigerdoc:
//   customer     partitioned on customerId: customers (addresses and password
//                embedded) and their sales orders (details embedded), told
//                apart by a `type` discriminator;
//   product      partitioned on categoryId: each product with its category
//                name and tag names copied in;
//   productMeta  partitioned on type: the categories and the tags.
// The article's change feed becomes a change stream on productMeta that
// copies renamed categories and tags into every product (the lag is
// measured), and its stored procedure becomes a transaction that inserts an
// order and increments the customer's salesOrderCount together. Each query
// the article lists is checked with explain to read one shard, except the
// one the article itself runs across partitions.
load(__dirname + "/../lib/assert.js");

const name = "shell_webstore";
const tdb = db.getSiblingDB(name);
assert.commandWorked(tdb.dropDatabase());

// The shard tables a find reads (queryPlanner.winningPlan.shards, one per table).
function shardsRead(cursor) {
  return cursor.explain("queryPlanner").queryPlanner.winningPlan.shards.length;
}

// --- The containers ---------------------------------------------------------
assert.commandWorked(tdb.createCollection("customer", {
  shardKey: { customerId: 1 },
  discriminator: {
    field: "type",
    types: {
      customer: { email: { $type: "string" }, salesOrderCount: { $type: "number" } },
      salesOrder: { details: { $type: "array" } },
    },
  },
}));
assert.commandWorked(tdb.createCollection("product", { shardKey: { categoryId: 1 } }));
assert.commandWorked(tdb.createCollection("productMeta", {
  shardKey: { type: 1 },
  discriminator: { field: "type", types: { category: { name: { $type: "string" } },
                                           tag: { name: { $type: "string" } } } },
}));

const categories = ["Bikes", "Helmets", "Gloves"].map((n, i) => ({ _id: "cat" + i, type: "category", name: n }));
const tags = ["Red", "Blue", "Carbon", "Kids", "Sale"].map((n, i) => ({ _id: "tag" + i, type: "tag", name: n }));
assert.commandWorked(tdb.productMeta.insertMany(categories.concat(tags)));
const products = [];
for (let i = 0; i < 30; i++) {
  const category = categories[i % 3];
  const productTags = [tags[i % 5], tags[(i + 2) % 5]];
  products.push({
    _id: "prod" + i, categoryId: category._id, categoryName: category.name, sku: "SKU-" + i,
    name: "Product " + i, price: 10 + i, tags: productTags.map((t) => ({ _id: t._id, name: t.name })),
  });
}
assert.commandWorked(tdb.product.insertMany(products));
for (let i = 0; i < 10; i++) {
  const id = "cust" + i;
  assert.commandWorked(tdb.customer.insertOne({
    _id: id, customerId: id, type: "customer", title: "", firstName: "First" + i, lastName: "Last" + i,
    email: "c" + i + "@example.com", phoneNumber: "555-010" + i, creationDate: new Date(),
    addresses: [{ addressLine1: i + " Main St", city: "Redmond", country: "US", zipCode: "98052" }],
    password: { hash: "aGFzaA==", salt: "c2FsdA==" }, salesOrderCount: 0,
  }));
}
// A wrong type is refused by the discriminator (121), as the article's
// model would want of a container holding two kinds of documents.
const refused = commandReply(tdb, { insert: "customer", documents: [{ _id: "x", customerId: "x", type: "invoice" }] });
assert.eq(refused.writeErrors[0].code, 121, EJSON.stringify(refused));

// --- The stored procedure: an order and the customer's counter, one transaction
const session = db.getMongo().startSession();
const sdb = session.getDatabase(name);
function placeOrder(customerId, orderId, details) {
  session.withTransaction(() => {
    sdb.customer.insertOne({ _id: orderId, customerId, type: "salesOrder", orderDate: new Date(),
                             shipDate: null, details });
    sdb.customer.updateOne({ customerId, _id: customerId }, { $inc: { salesOrderCount: 1 } });
  });
}
for (let i = 0; i < 10; i++) {
  for (let n = 0; n < i % 4; n++) {
    placeOrder("cust" + i, "order-" + i + "-" + n,
               [{ sku: "SKU-" + n, name: "Product " + n, price: 10 + n, quantity: 1 + n }]);
  }
}
// A failing order (its id is taken) rolls back the counter with it.
let failed = null;
try {
  placeOrder("cust3", "order-3-0", []);
} catch (e) {
  failed = e;
}
assert.eq(failed && failed.code, 11000, "the duplicate order: " + failed);
assert.eq(tdb.customer.findOne({ _id: "cust3" }).salesOrderCount, 3);
for (let i = 0; i < 10; i++) {
  const id = "cust" + i;
  const orders = tdb.customer.countDocuments({ customerId: id, type: "salesOrder" });
  assert.eq(tdb.customer.findOne({ customerId: id, _id: id }).salesOrderCount, orders, id);
}

// --- The article's queries: one partition each ------------------------------
// A customer by id (customerId is the partition key and the id).
let q = tdb.customer.find({ customerId: "cust7", _id: "cust7" });
assert.eq(q.toArray()[0].firstName, "First7");
assert.eq(shardsRead(tdb.customer.find({ customerId: "cust7", _id: "cust7" })), 1);
// A customer's orders.
q = tdb.customer.find({ customerId: "cust7", type: "salesOrder" });
assert.eq(q.toArray().length, 3);
assert.eq(shardsRead(tdb.customer.find({ customerId: "cust7", type: "salesOrder" })), 1);
// All categories, all tags (partition key `type`).
assert.eq(tdb.productMeta.find({ type: "category" }).toArray().length, 3);
assert.eq(shardsRead(tdb.productMeta.find({ type: "category" })), 1);
assert.eq(tdb.productMeta.find({ type: "tag" }).toArray().length, 5);
assert.eq(shardsRead(tdb.productMeta.find({ type: "tag" })), 1);
// The products of a category, with the names to show (no second query).
const bikes = tdb.product.find({ categoryId: "cat0" }).toArray();
assert.eq(bikes.length, 10);
assert(bikes.every((p) => p.categoryName === "Bikes" && p.tags.every((t) => typeof t.name === "string")));
assert.eq(shardsRead(tdb.product.find({ categoryId: "cat0" })), 1);
// Top customers by salesOrderCount: across partitions, as in the article
// ("SELECT * FROM c WHERE c.type = 'customer' ORDER BY c.salesOrderCount DESC").
const top = tdb.customer.find({ type: "customer" }).sort({ salesOrderCount: -1, _id: 1 }).limit(3).toArray();
assert.eq(top.map((c) => c.salesOrderCount), [3, 3, 2]);

// --- The change feed: renamed categories and tags reach every product -------
// The watcher: productMeta updates (with the full document) -> product updates.
const feed = tdb.productMeta.watch([{ $match: { operationType: { $in: ["update", "replace"] } } }],
                                   { fullDocument: "updateLookup", maxAwaitTimeMS: 100 });
function applyNextChange() {
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline) {
    const change = feed.tryNext();
    if (change === null) continue;
    const meta = change.fullDocument;
    if (meta.type === "category") {
      tdb.product.updateMany({ categoryId: meta._id }, { $set: { categoryName: meta.name } });
    } else {
      tdb.product.updateMany({ "tags._id": meta._id }, { $set: { "tags.$[t].name": meta.name } },
                             { arrayFilters: [{ "t._id": meta._id }] });
    }
    return change;
  }
  throw new Error("no change event within 10 s");
}
const lags = [];
function rename(id, type, newName) {
  const start = Date.now();
  assert.commandWorked(tdb.productMeta.updateOne({ type, _id: id }, { $set: { name: newName } }));
  const change = applyNextChange();
  lags.push(Date.now() - start);
  assert.eq(change.documentKey._id, id);
  assert.eq(change.updateDescription.updatedFields, { name: newName });
}
rename("cat0", "category", "Bicycles");
rename("tag2", "tag", "Carbon fibre");
rename("tag4", "tag", "Clearance");
assert.eq(tdb.product.countDocuments({ categoryId: "cat0", categoryName: "Bicycles" }), 10);
assert.eq(tdb.product.countDocuments({ categoryName: "Bikes" }), 0);
assert.eq(tdb.product.countDocuments({ "tags.name": "Carbon" }), 0);
assert.eq(tdb.product.countDocuments({ tags: { $elemMatch: { _id: "tag2", name: "Carbon fibre" } } }),
          tdb.product.countDocuments({ "tags._id": "tag2" }));
assert.eq(tdb.product.countDocuments({ tags: { $elemMatch: { _id: "tag4", name: "Clearance" } } }), 12);
feed.close();
session.endSession();
lags.sort((a, b) => a - b);
print("webstore: rename -> every product in step in " + lags.join(", ") + " ms (change stream lag included)");
