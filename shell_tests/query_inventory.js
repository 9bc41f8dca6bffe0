// The MongoDB manual's query tutorials, pasted as written, with their
// documented results asserted:
//   https://www.mongodb.com/docs/manual/tutorial/query-documents/
//   https://www.mongodb.com/docs/manual/tutorial/query-embedded-documents/
//   https://www.mongodb.com/docs/manual/tutorial/query-arrays/
//   https://www.mongodb.com/docs/manual/tutorial/query-array-of-documents/
//   https://www.mongodb.com/docs/manual/tutorial/query-for-null-fields/
//   https://www.mongodb.com/docs/manual/tutorial/project-fields-from-query-results/
//   https://www.mongodb.com/docs/manual/reference/method/cursor.sort/
//   https://www.mongodb.com/docs/manual/reference/method/db.collection.distinct/
// The tutorials number their examples ("Example 6" ...); the matching counts
// are the ones MongoDB's own documentation-example tests assert
// (mongo-python-driver test/test_examples.py, which the manual includes).
//
// A find() without sort() has no defined order in MongoDB, and the manual
// lists results in insertion order only by habit, so unsorted results are
// compared as sets (sorted by item or _id here). Everything else is exact.
//
// Skipped: countDocuments() (an aggregation, not implemented yet); the
// count command stands in for it.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_query_inventory");
assert.commandWorked(tdb.dropDatabase());

// Documents without their generated ObjectId _id, in item order.
function items(cursor) {
  return cursor.toArray().map((d) => d.item).sort();
}
function withoutIds(docs) {
  return docs
    .map((d) => {
      const copy = Object.assign({}, d);
      delete copy._id;
      return copy;
    })
    .sort((a, b) => (a.item < b.item ? -1 : a.item > b.item ? 1 : 0));
}
function count(coll, query) {
  return assert.commandWorked(tdb.runCommand({ count: coll.getName(), query: query })).n;
}

// --- Query Documents (Examples 6-13) -------------------------------------
{
  const inventory = tdb.query_documents;
  inventory.insertMany([
    { item: "journal", qty: 25, size: { h: 14, w: 21, uom: "cm" }, status: "A" },
    { item: "notebook", qty: 50, size: { h: 8.5, w: 11, uom: "in" }, status: "A" },
    { item: "paper", qty: 100, size: { h: 8.5, w: 11, uom: "in" }, status: "D" },
    { item: "planner", qty: 75, size: { h: 22.85, w: 30, uom: "cm" }, status: "D" },
    { item: "postcard", qty: 45, size: { h: 10, w: 15.25, uom: "cm" }, status: "A" },
  ]);
  assert.eq(count(inventory, {}), 5, "Example 6: five documents");

  // Example 7: select all documents.
  assert.eq(inventory.find({}).toArray().length, 5, "Example 7");
  // Example 9: equality condition.
  assert.eq(items(inventory.find({ status: "D" })).join(), "paper,planner", "Example 9");
  // Example 10: $in.
  assert.eq(inventory.find({ status: { $in: ["A", "D"] } }).toArray().length, 5, "Example 10");
  // Example 11: AND.
  assert.eq(items(inventory.find({ status: "A", qty: { $lt: 30 } })).join(), "journal", "Example 11");
  // Example 12: OR.
  assert.eq(
    items(inventory.find({ $or: [{ status: "A" }, { qty: { $lt: 30 } }] })).join(),
    "journal,notebook,postcard",
    "Example 12",
  );
  // Example 13: AND as well as OR.
  assert.eq(
    items(inventory.find({ status: "A", $or: [{ qty: { $lt: 30 } }, { item: /^p/ }] })).join(),
    "journal,postcard",
    "Example 13",
  );
  // The same counts through the count command.
  assert.eq(count(inventory, { status: "D" }), 2, "count status D");
  assert.eq(count(inventory, { $or: [{ status: "A" }, { qty: { $lt: 30 } }] }), 3, "count $or");
}

// --- Query on Embedded/Nested Documents (Examples 14-19) ------------------
{
  const inventory = tdb.query_embedded;
  inventory.insertMany([
    { item: "journal", qty: 25, size: { h: 14, w: 21, uom: "cm" }, status: "A" },
    { item: "notebook", qty: 50, size: { h: 8.5, w: 11, uom: "in" }, status: "A" },
    { item: "paper", qty: 100, size: { h: 8.5, w: 11, uom: "in" }, status: "D" },
    { item: "planner", qty: 75, size: { h: 22.85, w: 30, uom: "cm" }, status: "D" },
    { item: "postcard", qty: 45, size: { h: 10, w: 15.25, uom: "cm" }, status: "A" },
  ]);
  // Example 15: whole embedded document, exact match including field order.
  assert.eq(items(inventory.find({ size: { h: 14, w: 21, uom: "cm" } })).join(), "journal", "Example 15");
  // Example 16: same fields in another order match nothing.
  assert.eq(inventory.find({ size: { w: 21, h: 14, uom: "cm" } }).toArray().length, 0, "Example 16");
  // Example 17: dot notation.
  assert.eq(items(inventory.find({ "size.uom": "in" })).join(), "notebook,paper", "Example 17");
  // Example 18: query operator on a nested field.
  assert.eq(
    items(inventory.find({ "size.h": { $lt: 15 } })).join(),
    "journal,notebook,paper,postcard",
    "Example 18",
  );
  // Example 19: AND on nested fields.
  assert.eq(
    items(inventory.find({ "size.h": { $lt: 15 }, "size.uom": "in", status: "D" })).join(),
    "paper",
    "Example 19",
  );
}

// --- Query an Array (Examples 20-28) --------------------------------------
{
  const inventory = tdb.query_arrays;
  inventory.insertMany([
    { item: "journal", qty: 25, tags: ["blank", "red"], dim_cm: [14, 21] },
    { item: "notebook", qty: 50, tags: ["red", "blank"], dim_cm: [14, 21] },
    { item: "paper", qty: 100, tags: ["red", "blank", "plain"], dim_cm: [14, 21] },
    { item: "planner", qty: 75, tags: ["blank", "red"], dim_cm: [22.85, 30] },
    { item: "postcard", qty: 45, tags: ["blue"], dim_cm: [10, 15.25] },
  ]);
  // Example 21: exact array, order included.
  assert.eq(items(inventory.find({ tags: ["red", "blank"] })).join(), "notebook", "Example 21");
  // Example 22: $all ignores order and extra elements.
  assert.eq(
    items(inventory.find({ tags: { $all: ["red", "blank"] } })).join(),
    "journal,notebook,paper,planner",
    "Example 22",
  );
  // Example 23: array contains the element.
  assert.eq(items(inventory.find({ tags: "red" })).join(), "journal,notebook,paper,planner", "Example 23");
  // Example 24: some element satisfies the operator.
  assert.eq(items(inventory.find({ dim_cm: { $gt: 25 } })).join(), "planner", "Example 24");
  // Example 25: compound conditions may be met by different elements.
  assert.eq(
    items(inventory.find({ dim_cm: { $gt: 15, $lt: 20 } })).join(),
    "journal,notebook,paper,postcard",
    "Example 25",
  );
  // Example 26: $elemMatch needs one element meeting all conditions.
  assert.eq(items(inventory.find({ dim_cm: { $elemMatch: { $gt: 22, $lt: 30 } } })).join(), "planner", "Example 26");
  // Example 27: element by index.
  assert.eq(items(inventory.find({ "dim_cm.1": { $gt: 25 } })).join(), "planner", "Example 27");
  // Example 28: $size.
  assert.eq(items(inventory.find({ tags: { $size: 3 } })).join(), "paper", "Example 28");
}

// --- Query an Array of Embedded Documents (Examples 29-37) ----------------
{
  const inventory = tdb.query_array_of_documents;
  inventory.insertMany([
    { item: "journal", instock: [{ warehouse: "A", qty: 5 }, { warehouse: "C", qty: 15 }] },
    { item: "notebook", instock: [{ warehouse: "C", qty: 5 }] },
    { item: "paper", instock: [{ warehouse: "A", qty: 60 }, { warehouse: "B", qty: 15 }] },
    { item: "planner", instock: [{ warehouse: "A", qty: 40 }, { warehouse: "B", qty: 5 }] },
    { item: "postcard", instock: [{ warehouse: "B", qty: 15 }, { warehouse: "C", qty: 35 }] },
  ]);
  // Example 30: an element equal to the document, field order included.
  assert.eq(items(inventory.find({ instock: { warehouse: "A", qty: 5 } })).join(), "journal", "Example 30");
  // Example 31: reordered fields match nothing.
  assert.eq(inventory.find({ instock: { qty: 5, warehouse: "A" } }).toArray().length, 0, "Example 31");
  // Example 32: field of the element at an index.
  assert.eq(
    items(inventory.find({ "instock.0.qty": { $lte: 20 } })).join(),
    "journal,notebook,postcard",
    "Example 32",
  );
  // Example 33: field of any element.
  assert.eq(inventory.find({ "instock.qty": { $lte: 20 } }).toArray().length, 5, "Example 33");
  // Example 34: one element meets both equality conditions.
  assert.eq(items(inventory.find({ instock: { $elemMatch: { qty: 5, warehouse: "A" } } })).join(), "journal", "Example 34");
  // Example 35: one element within the range.
  assert.eq(
    items(inventory.find({ instock: { $elemMatch: { qty: { $gt: 10, $lte: 20 } } } })).join(),
    "journal,paper,postcard",
    "Example 35",
  );
  // Example 36: the conditions may be met by different elements.
  assert.eq(
    items(inventory.find({ "instock.qty": { $gt: 10, $lte: 20 } })).join(),
    "journal,paper,planner,postcard",
    "Example 36",
  );
  // Example 37: likewise for conditions on different fields.
  assert.eq(
    items(inventory.find({ "instock.qty": 5, "instock.warehouse": "A" })).join(),
    "journal,planner",
    "Example 37",
  );
}

// --- Query for Null or Missing Fields (Examples 38-41) --------------------
{
  const inventory = tdb.query_null;
  inventory.insertMany([{ _id: 1, item: null }, { _id: 2 }]);
  // Example 39: "the following query returns both documents".
  assert.docEq(inventory.find({ item: null }).sort({ _id: 1 }).toArray(), [{ _id: 1, item: null }, { _id: 2 }], "Example 39");
  // Example 40: "returns only the document where the item field has a null value".
  assert.docEq(inventory.find({ item: { $type: 10 } }).toArray(), [{ _id: 1, item: null }], "Example 40");
  // Example 41: "returns only the document that does not contain the item field".
  assert.docEq(inventory.find({ item: { $exists: false } }).toArray(), [{ _id: 2 }], "Example 41");
}

// --- Project Fields to Return from Query (Examples 42-50) -----------------
{
  const inventory = tdb.query_projection;
  inventory.insertMany([
    { item: "journal", status: "A", size: { h: 14, w: 21, uom: "cm" }, instock: [{ warehouse: "A", qty: 5 }] },
    { item: "notebook", status: "A", size: { h: 8.5, w: 11, uom: "in" }, instock: [{ warehouse: "C", qty: 5 }] },
    { item: "paper", status: "D", size: { h: 8.5, w: 11, uom: "in" }, instock: [{ warehouse: "A", qty: 60 }] },
    { item: "planner", status: "D", size: { h: 22.85, w: 30, uom: "cm" }, instock: [{ warehouse: "A", qty: 40 }] },
    {
      item: "postcard",
      status: "A",
      size: { h: 10, w: 15.25, uom: "cm" },
      instock: [{ warehouse: "B", qty: 15 }, { warehouse: "C", qty: 35 }],
    },
  ]);
  // Example 43: all fields (SELECT * ... WHERE status = "A").
  let docs = inventory.find({ status: "A" }).toArray();
  assert.docEq(
    withoutIds(docs),
    [
      { item: "journal", status: "A", size: { h: 14, w: 21, uom: "cm" }, instock: [{ warehouse: "A", qty: 5 }] },
      { item: "notebook", status: "A", size: { h: 8.5, w: 11, uom: "in" }, instock: [{ warehouse: "C", qty: 5 }] },
      {
        item: "postcard",
        status: "A",
        size: { h: 10, w: 15.25, uom: "cm" },
        instock: [{ warehouse: "B", qty: 15 }, { warehouse: "C", qty: 35 }],
      },
    ],
    "Example 43",
  );
  // Example 44: SELECT _id, item, status.
  docs = inventory.find({ status: "A" }, { item: 1, status: 1 }).toArray();
  assert(docs.every((d) => d._id instanceof ObjectId), "Example 44 keeps _id");
  assert.docEq(
    withoutIds(docs),
    [
      { item: "journal", status: "A" },
      { item: "notebook", status: "A" },
      { item: "postcard", status: "A" },
    ],
    "Example 44",
  );
  // Example 45: SELECT item, status.
  docs = inventory.find({ status: "A" }, { item: 1, status: 1, _id: 0 }).toArray();
  assert.docEq(
    withoutIds(docs),
    [
      { item: "journal", status: "A" },
      { item: "notebook", status: "A" },
      { item: "postcard", status: "A" },
    ],
    "Example 45",
  );
  assert(docs.every((d) => !("_id" in d)), "Example 45 suppresses _id");
  // Example 46: all but status and instock.
  docs = inventory.find({ status: "A" }, { status: 0, instock: 0 }).toArray();
  assert(docs.every((d) => d._id instanceof ObjectId), "Example 46 keeps _id");
  assert.docEq(
    withoutIds(docs),
    [
      { item: "journal", size: { h: 14, w: 21, uom: "cm" } },
      { item: "notebook", size: { h: 8.5, w: 11, uom: "in" } },
      { item: "postcard", size: { h: 10, w: 15.25, uom: "cm" } },
    ],
    "Example 46",
  );
  // Example 47: uom stays embedded in size.
  docs = inventory.find({ status: "A" }, { item: 1, status: 1, "size.uom": 1 }).toArray();
  assert.docEq(
    withoutIds(docs),
    [
      { item: "journal", status: "A", size: { uom: "cm" } },
      { item: "notebook", status: "A", size: { uom: "in" } },
      { item: "postcard", status: "A", size: { uom: "cm" } },
    ],
    "Example 47",
  );
  // Example 48: everything but size.uom.
  docs = inventory.find({ status: "A" }, { "size.uom": 0 }).toArray();
  assert.docEq(
    withoutIds(docs),
    [
      { item: "journal", status: "A", size: { h: 14, w: 21 }, instock: [{ warehouse: "A", qty: 5 }] },
      { item: "notebook", status: "A", size: { h: 8.5, w: 11 }, instock: [{ warehouse: "C", qty: 5 }] },
      {
        item: "postcard",
        status: "A",
        size: { h: 10, w: 15.25 },
        instock: [{ warehouse: "B", qty: 15 }, { warehouse: "C", qty: 35 }],
      },
    ],
    "Example 48",
  );
  // Example 49: qty inside every instock element.
  docs = inventory.find({ status: "A" }, { item: 1, status: 1, "instock.qty": 1 }).toArray();
  assert.docEq(
    withoutIds(docs),
    [
      { item: "journal", status: "A", instock: [{ qty: 5 }] },
      { item: "notebook", status: "A", instock: [{ qty: 5 }] },
      { item: "postcard", status: "A", instock: [{ qty: 15 }, { qty: 35 }] },
    ],
    "Example 49",
  );
  // Example 50: $slice returns just the last element of instock.
  docs = inventory.find({ status: "A" }, { item: 1, status: 1, instock: { $slice: -1 } }).toArray();
  assert.docEq(
    withoutIds(docs),
    [
      { item: "journal", status: "A", instock: [{ warehouse: "A", qty: 5 }] },
      { item: "notebook", status: "A", instock: [{ warehouse: "C", qty: 5 }] },
      { item: "postcard", status: "A", instock: [{ warehouse: "C", qty: 35 }] },
    ],
    "Example 50",
  );
  // "{ "instock.0": 1 } projection will not project the array with the
  // first element."
  const first = inventory.findOne({ item: "postcard" }, { "instock.0": 1 });
  assert.neq(first.instock, [{ warehouse: "B", qty: 15 }], "instock.0 is not an element projection");
}

// --- cursor.sort(), limit(), skip() ---------------------------------------
{
  const orders = tdb.sort_orders;
  orders.insertMany([
    { _id: 1, item: { category: "cake", type: "chiffon" }, amount: 10 },
    { _id: 2, item: { category: "cookies", type: "chocolate chip" }, amount: 50 },
    { _id: 3, item: { category: "cookies", type: "chocolate chip" }, amount: 15 },
    { _id: 4, item: { category: "cake", type: "lemon" }, amount: 30 },
    { _id: 5, item: { category: "cake", type: "carrot" }, amount: 20 },
    { _id: 6, item: { category: "brownies", type: "blondie" }, amount: 10 },
  ]);
  // sort({ amount: -1 }): the manual lists 2, 4, 5, 3, then 1 and 6 (a tie,
  // whose relative order the manual says is not guaranteed).
  let docs = orders.find().sort({ amount: -1 }).toArray();
  assert.eq(docs.map((d) => d.amount).join(), "50,30,20,15,10,10", "sort amount -1: keys");
  assert.eq(docs.slice(0, 4).map((d) => d._id).join(), "2,4,5,3", "sort amount -1: untied prefix");
  assert.eq(docs.slice(4).map((d) => d._id).sort().join(), "1,6", "sort amount -1: the tie");
  // sort on embedded fields: 6, 5, 1, 4, then the 2/3 tie.
  docs = orders.find().sort({ "item.category": 1, "item.type": 1 }).toArray();
  assert.eq(docs.slice(0, 4).map((d) => d._id).join(), "6,5,1,4", "sort item.category, item.type");
  assert.eq(docs.slice(4).map((d) => d._id).sort().join(), "2,3", "sort item.category, item.type: the tie");
  // limit() returns the first k in sort order; skip() skips in sort order.
  docs = orders.find().sort({ amount: -1 }).limit(3).toArray();
  assert.eq(docs.map((d) => d._id).join(), "2,4,5", "sort + limit");
  docs = orders.find().sort({ amount: -1 }).skip(2).limit(2).toArray();
  assert.eq(docs.map((d) => d._id).join(), "5,3", "sort + skip + limit");
  assert.eq(orders.find().sort({ amount: -1 }).skip(6).toArray().length, 0, "skip past the end");
}
{
  // "Sort Consistency": adding _id to the sort makes the order total.
  const restaurants = tdb.sort_restaurants;
  restaurants.insertMany([
    { _id: 1, name: "Central Park Cafe", borough: "Manhattan" },
    { _id: 2, name: "Rock A Feller Bar and Grill", borough: "Queens" },
    { _id: 3, name: "Empire State Pub", borough: "Brooklyn" },
    { _id: 4, name: "Stan's Pizzaria", borough: "Manhattan" },
    { _id: 5, name: "Jane's Deli", borough: "Brooklyn" },
  ]);
  assert.docEq(
    restaurants.find().sort({ borough: 1, _id: 1 }).toArray(),
    [
      { _id: 3, name: "Empire State Pub", borough: "Brooklyn" },
      { _id: 5, name: "Jane's Deli", borough: "Brooklyn" },
      { _id: 1, name: "Central Park Cafe", borough: "Manhattan" },
      { _id: 4, name: "Stan's Pizzaria", borough: "Manhattan" },
      { _id: 2, name: "Rock A Feller Bar and Grill", borough: "Queens" },
    ],
    "sort borough, _id",
  );
  const boroughs = restaurants.find().sort({ borough: 1 }).toArray().map((d) => d.borough);
  assert.eq(boroughs.join(), "Brooklyn,Brooklyn,Manhattan,Manhattan,Queens", "sort borough");
}

// --- db.collection.distinct() ---------------------------------------------
{
  const inventory = tdb.distinct_inventory;
  inventory.insertMany([
    { _id: 1, dept: "A", item: { sku: "111", color: "red" }, sizes: ["S", "M"] },
    { _id: 2, dept: "A", item: { sku: "111", color: "blue" }, sizes: ["M", "L"] },
    { _id: 3, dept: "B", item: { sku: "222", color: "blue" }, sizes: "S" },
    { _id: 4, dept: "A", item: { sku: "333", color: "black" }, sizes: ["S"] },
  ]);
  // The manual prints these arrays in the order mongod returns them; the
  // order is not part of distinct's contract, so compare sorted.
  assert.eq(inventory.distinct("dept").sort(), ["A", "B"], "distinct dept");
  assert.eq(inventory.distinct("item.sku").sort(), ["111", "222", "333"], "distinct item.sku");
  assert.eq(inventory.distinct("sizes").sort(), ["L", "M", "S"], "distinct sizes ([ 'M', 'S', 'L' ])");
  assert.eq(inventory.distinct("item.sku", { dept: "A" }).sort(), ["111", "333"], "distinct with query");
}

assert.commandWorked(tdb.dropDatabase());
