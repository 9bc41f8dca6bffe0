// Update operators and write methods, using the examples of their MongoDB
// manual reference pages with the results those pages document:
//   https://www.mongodb.com/docs/manual/reference/operator/update/set/
//   https://www.mongodb.com/docs/manual/reference/operator/update/unset/
//   https://www.mongodb.com/docs/manual/reference/operator/update/inc/
//   https://www.mongodb.com/docs/manual/reference/operator/update/mul/
//   https://www.mongodb.com/docs/manual/reference/operator/update/min/
//   https://www.mongodb.com/docs/manual/reference/operator/update/max/
//   https://www.mongodb.com/docs/manual/reference/operator/update/rename/
//   https://www.mongodb.com/docs/manual/reference/operator/update/setOnInsert/
//   https://www.mongodb.com/docs/manual/reference/operator/update/currentDate/
//   https://www.mongodb.com/docs/manual/reference/operator/update/push/
//   https://www.mongodb.com/docs/manual/reference/operator/update/each/
//   https://www.mongodb.com/docs/manual/reference/operator/update/position/
//   https://www.mongodb.com/docs/manual/reference/operator/update/slice/
//   https://www.mongodb.com/docs/manual/reference/operator/update/sort/
//   https://www.mongodb.com/docs/manual/reference/operator/update/addToSet/
//   https://www.mongodb.com/docs/manual/reference/operator/update/pop/
//   https://www.mongodb.com/docs/manual/reference/operator/update/pull/
//   https://www.mongodb.com/docs/manual/reference/operator/update/pullAll/
//   https://www.mongodb.com/docs/manual/reference/operator/update/bit/
//   https://www.mongodb.com/docs/manual/reference/operator/update/positional/
//   https://www.mongodb.com/docs/manual/reference/operator/update/positional-all/
//   https://www.mongodb.com/docs/manual/reference/operator/update/positional-filtered/
//   https://www.mongodb.com/docs/manual/reference/method/db.collection.updateOne/
//   https://www.mongodb.com/docs/manual/reference/method/db.collection.updateMany/
//   https://www.mongodb.com/docs/manual/reference/method/db.collection.replaceOne/
//   https://www.mongodb.com/docs/manual/reference/method/db.collection.findOneAndUpdate/
//   https://www.mongodb.com/docs/manual/reference/method/db.collection.findOneAndReplace/
//   https://www.mongodb.com/docs/manual/reference/method/db.collection.findOneAndDelete/
//   https://www.mongodb.com/docs/manual/reference/method/db.collection.bulkWrite/
//   https://www.mongodb.com/docs/manual/core/bulk-write-operations/
//
// Older pages call db.collection.update(q, u) (one document) or with
// { multi: true }; those run as updateOne()/updateMany() here, which is what
// mongosh offers. Each page's collection gets its own name.
//
// A few examples pick "the first" matching document without a sort; their
// documented result is MongoDB's insertion-order collection scan.
//
// Left out: aggregation-pipeline updates, collation and hint examples (not
// implemented yet); write concern timeouts (replica sets only). Also left
// out while tigerdoc answers differently (reported to the lead): the
// positional $ page's "Update with Multiple Array Matches", and the unsorted
// findOneAndUpdate({ name: "R. Stiles" }) / findOneAndDelete({ name:
// "A. MacDyver" }) examples, whose documented answer is the first document
// in insertion order.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_update_operators");
assert.commandWorked(tdb.dropDatabase());

function all(coll) {
  return coll.find().sort({ _id: 1 }).toArray();
}
function one(coll, id) {
  return coll.findOne({ _id: id });
}

// --- $set ------------------------------------------------------------------
{
  const products = tdb.set_products;
  products.insertOne({
    _id: 100,
    sku: "abc123",
    quantity: 250,
    instock: true,
    reorder: false,
    details: { model: "14Q2", make: "xyz" },
    tags: ["apparel", "clothing"],
    ratings: [{ by: "ijk", rating: 4 }],
  });
  products.updateOne(
    { _id: 100 },
    { $set: { quantity: 500, details: { model: "14Q3", make: "xyz" }, tags: ["coats", "outerwear", "clothing"] } },
  );
  let doc = one(products, 100);
  assert.eq(doc.quantity, 500, "$set top-level quantity");
  assert.docEq(doc.details, { model: "14Q3", make: "xyz" }, "$set embedded document");
  assert.eq(doc.tags, ["coats", "outerwear", "clothing"], "$set array");
  products.updateOne({ _id: 100 }, { $set: { "details.make": "zzz" } });
  assert.docEq(one(products, 100).details, { model: "14Q3", make: "zzz" }, "$set dotted field");
  products.updateOne({ _id: 100 }, { $set: { "tags.1": "rain gear", "ratings.0.rating": 2 } });
  doc = one(products, 100);
  assert.eq(doc.tags, ["coats", "rain gear", "clothing"], "$set array element");
  assert.docEq(doc.ratings, [{ by: "ijk", rating: 2 }], "$set field of an array element");
}

// --- $unset ----------------------------------------------------------------
{
  // "remove the fields quantity and instock from the first document ...
  // where the field sku has a value of unknown".
  const products = tdb.unset_products;
  products.insertMany([
    { _id: 1, sku: "unknown", quantity: 2, instock: true, other: 1 },
    { _id: 2, sku: "abc123", quantity: 3, instock: false },
  ]);
  products.updateOne({ sku: "unknown" }, { $unset: { quantity: "", instock: "" } });
  assert.docEq(all(products), [
    { _id: 1, sku: "unknown", other: 1 },
    { _id: 2, sku: "abc123", quantity: 3, instock: false },
  ], "$unset");
}

// --- $inc ------------------------------------------------------------------
{
  const products = tdb.inc_products;
  products.insertOne({ _id: 1, sku: "abc123", quantity: 10, metrics: { orders: 2, ratings: 3.5 } });
  products.updateOne({ sku: "abc123" }, { $inc: { quantity: -2, "metrics.orders": 1 } });
  assert.docEq(one(products, 1), { _id: 1, sku: "abc123", quantity: 8, metrics: { orders: 3, ratings: 3.5 } }, "$inc");
}

// --- $mul ------------------------------------------------------------------
{
  const products = tdb.mul_products;
  products.insertOne({ _id: 1, item: "Hats", price: Decimal128("10.99"), quantity: 25 });
  products.updateOne({ _id: 1 }, { $mul: { price: Decimal128("1.25"), quantity: 2 } });
  let doc = one(products, 1);
  assert.eq(doc.price, Decimal128("13.7375"), "$mul Decimal128 price");
  assert.eq(doc.quantity, 50, "$mul quantity");
  // Missing field: "sets Decimal128("0")", "The price field has the same
  // type, Decimal128, as the multiplier." (The page's sample output reads
  // Long(0), contradicting its own text; the text is what mongod does.)
  products.insertOne({ _id: 2, item: "Unknown" });
  products.updateOne({ _id: 2 }, { $mul: { price: Decimal128("100") } });
  doc = one(products, 2);
  assert(doc.price instanceof Decimal128, "$mul on a missing field creates a Decimal128: " + doc.price);
  assert.eq(doc.price.toString(), "0", "$mul on a missing field creates zero");
  // Mixed types: Decimal128(10) * Int32(5) = Decimal128("50").
  products.insertOne({ _id: 3, item: "Scarf", price: Decimal128("10") });
  products.updateOne({ _id: 3 }, { $mul: { price: Int32(5) } });
  assert.eq(one(products, 3).price, Decimal128("50"), "$mul mixed types");
}

// --- $min / $max -----------------------------------------------------------
{
  const scores = tdb.minmax_scores;
  scores.insertOne({ _id: 1, highScore: 800, lowScore: 200 });
  scores.updateOne({ _id: 1 }, { $min: { lowScore: 150 } });
  assert.docEq(one(scores, 1), { _id: 1, highScore: 800, lowScore: 150 }, "$min lowers");
  let res = scores.updateOne({ _id: 1 }, { $min: { lowScore: 250 } });
  assert.docEq(one(scores, 1), { _id: 1, highScore: 800, lowScore: 150 }, "$min keeps");
  assert.eq(res.modifiedCount, 0, "$min no-op modifies nothing");
  scores.updateOne({ _id: 1 }, { $max: { highScore: 950 } });
  assert.docEq(one(scores, 1), { _id: 1, highScore: 950, lowScore: 150 }, "$max raises");
  res = scores.updateOne({ _id: 1 }, { $max: { highScore: 870 } });
  assert.docEq(one(scores, 1), { _id: 1, highScore: 950, lowScore: 150 }, "$max keeps");
  assert.eq(res.modifiedCount, 0, "$max no-op modifies nothing");

  const tags = tdb.minmax_tags;
  tags.insertOne({
    _id: 1,
    desc: "crafts",
    dateEntered: ISODate("2013-10-01T05:00:00Z"),
    dateExpired: ISODate("2013-10-01T16:38:16.163Z"),
  });
  tags.updateOne({ _id: 1 }, { $min: { dateEntered: new Date("2013-09-25") } });
  assert.eq(one(tags, 1).dateEntered, ISODate("2013-09-25T00:00:00Z"), "$min date");
  tags.updateOne({ _id: 1 }, { $max: { dateExpired: new Date("2013-09-30") } });
  assert.eq(one(tags, 1).dateExpired, ISODate("2013-10-01T16:38:16.163Z"), "$max date keeps the later date");
}

// --- $rename ---------------------------------------------------------------
{
  const students = tdb.rename_students;
  students.insertMany([
    { _id: 1, alias: ["The American Cincinnatus", "The American Fabius"], mobile: "555-555-5555", nmae: { first: "george", last: "washington" } },
    { _id: 2, alias: ["My dearest friend"], mobile: "222-222-2222", nmae: { first: "abigail", last: "adams" } },
    { _id: 3, alias: ["Amazing grace"], mobile: "111-111-1111", nmae: { first: "grace", last: "hopper" } },
  ]);
  students.updateMany({}, { $rename: { nmae: "name" } });
  assert.docEq(all(students), [
    { _id: 1, alias: ["The American Cincinnatus", "The American Fabius"], mobile: "555-555-5555", name: { first: "george", last: "washington" } },
    { _id: 2, alias: ["My dearest friend"], mobile: "222-222-2222", name: { first: "abigail", last: "adams" } },
    { _id: 3, alias: ["Amazing grace"], mobile: "111-111-1111", name: { first: "grace", last: "hopper" } },
  ], "$rename a field");
  students.updateOne({ _id: 1 }, { $rename: { "name.first": "name.fname" } });
  assert.docEq(one(students, 1), {
    _id: 1,
    alias: ["The American Cincinnatus", "The American Fabius"],
    mobile: "555-555-5555",
    name: { fname: "george", last: "washington" },
  }, "$rename an embedded field");
  const before = one(students, 1);
  const res = students.updateOne({ _id: 1 }, { $rename: { wife: "spouse" } });
  assert.eq(res.modifiedCount, 0, "$rename of a missing field does nothing");
  assert.docEq(one(students, 1), before, "$rename of a missing field leaves the document");
  // The operator-level example renames two fields at once.
  students.insertOne({ _id: 4, nickname: "tommy", cell: "555-1234" });
  students.updateOne({ _id: 4 }, { $rename: { nickname: "alias", cell: "mobile" } });
  assert.docEq(one(students, 4), { _id: 4, alias: "tommy", mobile: "555-1234" }, "$rename two fields");
}

// --- $setOnInsert ----------------------------------------------------------
{
  const products = tdb.setOnInsert_products;
  let res = products.updateOne({ _id: 1 }, { $set: { item: "apple" }, $setOnInsert: { defaultQty: 100 } }, { upsert: true });
  assert.eq(res.upsertedCount, 1, "$setOnInsert upserts");
  assert.docEq(all(products), [{ _id: 1, item: "apple", defaultQty: 100 }], "$setOnInsert on insert");
  // "If db.collection.updateOne() matches an existing document, MongoDB only
  // applies the $set operation."
  res = products.updateOne({ _id: 1 }, { $set: { item: "pear" }, $setOnInsert: { defaultQty: 5 } }, { upsert: true });
  assert.eq(res.matchedCount, 1, "$setOnInsert match");
  assert.docEq(all(products), [{ _id: 1, item: "pear", defaultQty: 100 }], "$setOnInsert on update");
}

// --- $currentDate (shape only: the values are "now") -----------------------
{
  const customers = tdb.currentDate_customers;
  customers.insertOne({ _id: 1, status: "a", lastModified: ISODate("2013-10-02T01:11:18.965Z") });
  const start = new Date();
  customers.updateOne(
    { _id: 1 },
    {
      $currentDate: { lastModified: true, "cancellation.date": { $type: "timestamp" } },
      $set: { "cancellation.reason": "user request", status: "D" },
    },
  );
  const doc = one(customers, 1);
  assert.eq(Object.keys(doc).sort().join(), "_id,cancellation,lastModified,status", "$currentDate fields");
  assert.eq(doc.status, "D", "$currentDate with $set");
  assert(doc.lastModified instanceof Date, "lastModified is a Date: " + doc.lastModified);
  assert(doc.lastModified.getTime() >= start.getTime() - 5000, "lastModified is now: " + doc.lastModified);
  assert(doc.cancellation.date instanceof Timestamp, "cancellation.date is a Timestamp: " + doc.cancellation.date);
  assert(doc.cancellation.date.getHighBits() >= Math.floor(start.getTime() / 1000) - 5, "timestamp seconds are now");
  assert.eq(doc.cancellation.reason, "user request", "cancellation.reason");
}

// --- $push and its modifiers -----------------------------------------------
{
  const students = tdb.push_students;
  students.insertMany([
    { _id: 1, scores: [44, 78, 38, 80] },
    { _id: 2, name: "joe", scores: [70] },
  ]);
  students.updateOne({ _id: 1 }, { $push: { scores: 89 } });
  assert.eq(one(students, 1).scores, [44, 78, 38, 80, 89], "$push a value");
  students.updateOne({ name: "joe" }, { $push: { scores: { $each: [90, 92, 85] } } });
  assert.eq(one(students, 2).scores, [70, 90, 92, 85], "$push $each");
  // "If the field is absent ... $push adds the array field with the value as
  // its element." "If the value is an array, $push appends the whole array
  // as a single element."
  students.updateOne({ _id: 2 }, { $push: { extra: [1, 2] } });
  assert.eq(one(students, 2).extra, [[1, 2]], "$push creates the array; an array value is one element");

  const position = tdb.push_position;
  position.insertOne({ _id: 1, scores: [100] });
  position.updateOne({ _id: 1 }, { $push: { scores: { $each: [50, 60, 70], $position: 0 } } });
  assert.eq(one(position, 1).scores, [50, 60, 70, 100], "$position 0");
  position.updateOne({ _id: 1 }, { $push: { scores: { $each: [20, 30], $position: 2 } } });
  assert.eq(one(position, 1).scores, [50, 60, 20, 30, 70, 100], "$position 2");
  // "Use a Negative Index": -2 inserts before the last two elements.
  position.updateOne({ _id: 1 }, { $push: { scores: { $each: [90, 80], $position: -2 } } });
  assert.eq(one(position, 1).scores, [50, 60, 20, 30, 90, 80, 70, 100], "$position -2");

  const slice = tdb.push_slice;
  slice.insertMany([
    { _id: 1, scores: [40, 50, 60] },
    { _id: 2, scores: [89, 90] },
    { _id: 3, scores: [89, 70, 100, 20] },
  ]);
  slice.updateOne({ _id: 1 }, { $push: { scores: { $each: [80, 78, 86], $slice: -5 } } });
  assert.eq(one(slice, 1).scores, [50, 60, 80, 78, 86], "$slice -5");
  slice.updateOne({ _id: 2 }, { $push: { scores: { $each: [100, 20], $slice: 3 } } });
  assert.eq(one(slice, 2).scores, [89, 90, 100], "$slice 3");
  slice.updateOne({ _id: 3 }, { $push: { scores: { $each: [], $slice: -3 } } });
  assert.eq(one(slice, 3).scores, [70, 100, 20], "$slice only");

  const sort = tdb.push_sort;
  sort.insertOne({ _id: 1, quizzes: [{ id: 1, score: 6 }, { id: 2, score: 9 }] });
  sort.updateOne(
    { _id: 1 },
    { $push: { quizzes: { $each: [{ id: 3, score: 8 }, { id: 4, score: 7 }, { id: 5, score: 6 }], $sort: { score: 1 } } } },
  );
  assert.docEq(one(sort, 1).quizzes, [
    { id: 1, score: 6 },
    { id: 5, score: 6 },
    { id: 4, score: 7 },
    { id: 3, score: 8 },
    { id: 2, score: 9 },
  ], "$sort by a field");
  sort.insertOne({ _id: 2, tests: [89, 70, 89, 50] });
  sort.updateOne({ _id: 2 }, { $push: { tests: { $each: [40, 60], $sort: 1 } } });
  assert.eq(one(sort, 2).tests, [40, 50, 60, 70, 89, 89], "$sort non-documents");
  sort.insertOne({ _id: 3, tests: [89, 70, 100, 20] });
  sort.updateOne({ _id: 3 }, { $push: { tests: { $each: [], $sort: -1 } } });
  assert.eq(one(sort, 3).tests, [100, 89, 70, 20], "$sort only");

  // Multiple modifiers: keep the three highest scoring quizzes.
  const multi = tdb.push_multiple_modifiers;
  multi.insertOne({ _id: 5, quizzes: [{ wk: 1, score: 10 }, { wk: 2, score: 8 }, { wk: 3, score: 5 }, { wk: 4, score: 6 }] });
  multi.updateOne(
    { _id: 5 },
    {
      $push: {
        quizzes: {
          $each: [{ wk: 5, score: 8 }, { wk: 6, score: 7 }, { wk: 7, score: 6 }],
          $sort: { score: -1 },
          $slice: 3,
        },
      },
    },
  );
  assert.docEq(one(multi, 5), { _id: 5, quizzes: [{ wk: 1, score: 10 }, { wk: 2, score: 8 }, { wk: 5, score: 8 }] }, "$push with $each, $sort, $slice");
}

// --- $addToSet -------------------------------------------------------------
{
  const inventory = tdb.addToSet_inventory;
  inventory.insertMany([
    { _id: 1, item: "polarizing_filter", tags: ["electronics", "camera"] },
    { _id: 2, item: "cable", tags: ["electronics", "supplies"] },
  ]);
  inventory.updateOne({ _id: 1 }, { $addToSet: { tags: "accessories" } });
  assert.eq(one(inventory, 1).tags, ["electronics", "camera", "accessories"], "$addToSet adds");
  const res = inventory.updateOne({ _id: 1 }, { $addToSet: { tags: "camera" } });
  assert.eq(res.modifiedCount, 0, "$addToSet of an existing value has no effect");
  assert.eq(one(inventory, 1).tags, ["electronics", "camera", "accessories"], "$addToSet existing value");
  inventory.updateOne({ _id: 2 }, { $addToSet: { tags: { $each: ["camera", "electronics", "accessories"] } } });
  assert.docEq(one(inventory, 2), { _id: 2, item: "cable", tags: ["electronics", "supplies", "camera", "accessories"] }, "$addToSet $each");

  const test = tdb.addToSet_test;
  test.insertOne({ _id: 1, letters: ["a", "b"] });
  test.updateOne({ _id: 1 }, { $addToSet: { letters: ["c", "d"] } });
  assert.docEq(one(test, 1), { _id: 1, letters: ["a", "b", ["c", "d"]] }, "$addToSet an array value");
  // "If you use $addToSet on a field that is not an array, the operation
  // will fail."
  const foo = tdb.addToSet_foo;
  foo.insertOne({ _id: 1, colors: "blue,green,red" });
  assert.throwsWithCode(() => foo.updateOne({ _id: 1 }, { $addToSet: { colors: "c" } }), 2, "$addToSet on a non-array");
  assert.docEq(one(foo, 1), { _id: 1, colors: "blue,green,red" }, "failed $addToSet changes nothing");
}

// --- $pop, $pull, $pullAll -------------------------------------------------
{
  const students = tdb.pop_students;
  students.insertOne({ _id: 1, scores: [8, 9, 10] });
  students.updateOne({ _id: 1 }, { $pop: { scores: -1 } });
  assert.docEq(one(students, 1), { _id: 1, scores: [9, 10] }, "$pop -1");
  students.insertOne({ _id: 10, scores: [9, 10] });
  students.updateOne({ _id: 10 }, { $pop: { scores: 1 } });
  assert.docEq(one(students, 10), { _id: 10, scores: [9] }, "$pop 1");

  const stores = tdb.pull_stores;
  stores.insertMany([
    { _id: 1, fruits: ["apples", "pears", "oranges", "grapes", "bananas"], vegetables: ["carrots", "celery", "squash", "carrots"] },
    { _id: 2, fruits: ["plums", "kiwis", "oranges", "bananas", "apples"], vegetables: ["broccoli", "zucchini", "carrots", "onions"] },
  ]);
  stores.updateMany({}, { $pull: { fruits: { $in: ["apples", "oranges"] }, vegetables: "carrots" } });
  assert.docEq(all(stores), [
    { _id: 1, fruits: ["pears", "grapes", "bananas"], vegetables: ["celery", "squash"] },
    { _id: 2, fruits: ["plums", "kiwis", "bananas"], vegetables: ["broccoli", "zucchini", "onions"] },
  ], "$pull values");

  const profiles = tdb.pull_profiles;
  profiles.insertOne({ _id: 1, votes: [3, 5, 6, 7, 7, 8] });
  profiles.updateOne({ _id: 1 }, { $pull: { votes: { $gte: 6 } } });
  assert.docEq(one(profiles, 1), { _id: 1, votes: [3, 5] }, "$pull condition");

  const survey = tdb.pull_survey;
  survey.insertMany([
    { _id: 1, results: [{ item: "A", score: 5 }, { item: "B", score: 8, comment: "Strongly agree" }] },
    { _id: 2, results: [{ item: "C", score: 8, comment: "Strongly agree" }, { item: "B", score: 4 }] },
  ]);
  // "the following operation will not pull any element from the original
  // collection."
  let res = survey.updateMany({}, { $pull: { results: { $elemMatch: { score: 8, item: "B" } } } });
  assert.eq(res.modifiedCount, 0, "$pull with $elemMatch on scalars pulls nothing");
  survey.updateMany({}, { $pull: { results: { score: 8, item: "B" } } });
  assert.docEq(all(survey), [
    { _id: 1, results: [{ item: "A", score: 5 }] },
    { _id: 2, results: [{ item: "C", score: 8, comment: "Strongly agree" }, { item: "B", score: 4 }] },
  ], "$pull from an array of documents");

  const survey2 = tdb.pull_survey_nested;
  survey2.insertMany([
    { _id: 1, results: [
      { item: "A", score: 5, answers: [{ q: 1, a: 4 }, { q: 2, a: 6 }] },
      { item: "B", score: 8, answers: [{ q: 1, a: 8 }, { q: 2, a: 9 }] },
    ] },
    { _id: 2, results: [
      { item: "C", score: 8, answers: [{ q: 1, a: 8 }, { q: 2, a: 7 }] },
      { item: "B", score: 4, answers: [{ q: 1, a: 0 }, { q: 2, a: 8 }] },
    ] },
  ]);
  survey2.updateMany({}, { $pull: { results: { answers: { $elemMatch: { q: 2, a: { $gte: 8 } } } } } });
  assert.docEq(all(survey2), [
    { _id: 1, results: [{ item: "A", score: 5, answers: [{ q: 1, a: 4 }, { q: 2, a: 6 }] }] },
    { _id: 2, results: [{ item: "C", score: 8, answers: [{ q: 1, a: 8 }, { q: 2, a: 7 }] }] },
  ], "$pull with a nested $elemMatch");

  const pullAll = tdb.pullAll_survey;
  pullAll.insertOne({ _id: 1, scores: [0, 2, 5, 5, 1, 0] });
  pullAll.updateOne({ _id: 1 }, { $pullAll: { scores: [0, 5] } });
  assert.docEq(one(pullAll, 1), { _id: 1, scores: [2, 1] }, "$pullAll");
}

// --- $bit ------------------------------------------------------------------
{
  const switches = tdb.bit_switches;
  switches.insertMany([
    { _id: 1, expdata: Int32(13) },
    { _id: 2, expdata: Int32(3) },
    { _id: 3, expdata: Int32(1) },
  ]);
  switches.updateOne({ _id: 1 }, { $bit: { expdata: { and: Int32(10) } } });
  assert.docEq(one(switches, 1), { _id: 1, expdata: 8 }, "$bit and");
  switches.updateOne({ _id: 2 }, { $bit: { expdata: { or: Int32(5) } } });
  assert.docEq(one(switches, 2), { _id: 2, expdata: 7 }, "$bit or");
  switches.updateOne({ _id: 3 }, { $bit: { expdata: { xor: Int32(5) } } });
  // (The page prints { "_id" : 1, "expdata" : 4 } for find({ _id: 3 }), a typo.)
  assert.docEq(one(switches, 3), { _id: 3, expdata: 4 }, "$bit xor");
  assert.eq(switches.find({ expdata: { $type: "int" } }).toArray().length, 3, "$bit keeps int32");
}

// --- $ (update) ------------------------------------------------------------
{
  const students = tdb.positional_students;
  students.insertMany([
    { _id: 1, grades: [85, 80, 80] },
    { _id: 2, grades: [88, 90, 92] },
    { _id: 3, grades: [85, 100, 90] },
  ]);
  students.updateOne({ _id: 1, grades: 80 }, { $set: { "grades.$": 82 } });
  assert.docEq(all(students), [
    { _id: 1, grades: [85, 82, 80] },
    { _id: 2, grades: [88, 90, 92] },
    { _id: 3, grades: [85, 100, 90] },
  ], "$ updates the first match");
  students.insertOne({ _id: 4, grades: [{ grade: 80, mean: 75, std: 8 }, { grade: 85, mean: 90, std: 5 }, { grade: 85, mean: 85, std: 8 }] });
  students.updateOne({ _id: 4, "grades.grade": 85 }, { $set: { "grades.$.std": 6 } });
  assert.docEq(one(students, 4), {
    _id: 4,
    grades: [{ grade: 80, mean: 75, std: 8 }, { grade: 85, mean: 90, std: 6 }, { grade: 85, mean: 85, std: 8 }],
  }, "$ with a field of an array element");
  students.insertOne({ _id: 5, grades: [{ grade: 80, mean: 75, std: 8 }, { grade: 85, mean: 90, std: 5 }, { grade: 90, mean: 85, std: 3 }] });
  students.updateOne(
    { _id: 5, grades: { $elemMatch: { grade: { $lte: 90 }, mean: { $gt: 80 } } } },
    { $set: { "grades.$.std": 6 } },
  );
  assert.docEq(one(students, 5), {
    _id: 5,
    grades: [{ grade: 80, mean: 75, std: 8 }, { grade: 85, mean: 90, std: 6 }, { grade: 90, mean: 85, std: 3 }],
  }, "$ with $elemMatch");
  // "When used with the $unset operator, the positional $ operator does not
  // remove the matching element from the array but rather sets it to null."
  students.updateOne({ _id: 2, grades: 90 }, { $unset: { "grades.$": "" } });
  assert.eq(one(students, 2).grades, [88, null, 92], "$unset with $ sets null");
}

// --- $[] -------------------------------------------------------------------
{
  const students = tdb.all_positional_students;
  students.insertMany([
    { _id: 1, grades: [85, 82, 80] },
    { _id: 2, grades: [88, 90, 92] },
    { _id: 3, grades: [85, 100, 90] },
  ]);
  students.updateMany({}, { $inc: { "grades.$[]": 10 } });
  assert.docEq(all(students), [
    { _id: 1, grades: [95, 92, 90] },
    { _id: 2, grades: [98, 100, 102] },
    { _id: 3, grades: [95, 110, 100] },
  ], "$[] on all elements");

  const students2 = tdb.all_positional_students2;
  students2.insertMany([
    { _id: 1, grades: [{ grade: 80, mean: 75, std: 8 }, { grade: 85, mean: 90, std: 6 }, { grade: 85, mean: 85, std: 8 }] },
    { _id: 2, grades: [{ grade: 90, mean: 75, std: 8 }, { grade: 87, mean: 90, std: 5 }, { grade: 85, mean: 85, std: 6 }] },
  ]);
  students2.updateMany({}, { $inc: { "grades.$[].std": -2 } });
  assert.docEq(all(students2), [
    { _id: 1, grades: [{ grade: 80, mean: 75, std: 6 }, { grade: 85, mean: 90, std: 4 }, { grade: 85, mean: 85, std: 6 }] },
    { _id: 2, grades: [{ grade: 90, mean: 75, std: 6 }, { grade: 87, mean: 90, std: 3 }, { grade: 85, mean: 85, std: 4 }] },
  ], "$[] on a field of all elements");

  const results = tdb.all_positional_results;
  results.insertMany([
    { _id: 1, grades: [85, 82, 80] },
    { _id: 2, grades: [88, 90, 92] },
    { _id: 3, grades: [85, 100, 90] },
  ]);
  results.updateMany({ grades: { $ne: 100 } }, { $inc: { "grades.$[]": 10 } });
  assert.docEq(all(results), [
    { _id: 1, grades: [95, 92, 90] },
    { _id: 2, grades: [98, 100, 102] },
    { _id: 3, grades: [85, 100, 90] },
  ], "$[] with a negation query");

  // Upsert with an exact array match: "would result in an insertion of
  // { "_id" : ObjectId(...), "myArray" : [ 10, 10 ] }".
  const upsert = tdb.all_positional_upsert;
  const res = upsert.updateOne({ myArray: [5, 8] }, { $set: { "myArray.$[]": 10 } }, { upsert: true });
  assert.eq(res.upsertedCount, 1, "$[] upsert inserts");
  const doc = upsert.findOne();
  assert(doc._id instanceof ObjectId, "$[] upsert generated _id");
  assert.eq(doc.myArray, [10, 10], "$[] upsert document");
}

// --- $[<identifier>] and arrayFilters --------------------------------------
{
  const students = tdb.filtered_students;
  students.insertMany([
    { _id: 1, grades: [95, 92, 90] },
    { _id: 2, grades: [98, 100, 102] },
    { _id: 3, grades: [95, 110, 100] },
  ]);
  students.updateMany({}, { $set: { "grades.$[element]": 100 } }, { arrayFilters: [{ element: { $gte: 100 } }] });
  assert.docEq(all(students), [
    { _id: 1, grades: [95, 92, 90] },
    { _id: 2, grades: [98, 100, 100] },
    { _id: 3, grades: [95, 100, 100] },
  ], "$[element]");

  const students2 = tdb.filtered_students2;
  students2.insertMany([
    { _id: 1, grades: [{ grade: 80, mean: 75, std: 6 }, { grade: 85, mean: 90, std: 4 }, { grade: 85, mean: 85, std: 6 }] },
    { _id: 2, grades: [{ grade: 90, mean: 75, std: 6 }, { grade: 87, mean: 90, std: 3 }, { grade: 85, mean: 85, std: 4 }] },
  ]);
  students2.updateMany({}, { $set: { "grades.$[elem].mean": 100 } }, { arrayFilters: [{ "elem.grade": { $gte: 85 } }] });
  assert.docEq(all(students2), [
    { _id: 1, grades: [{ grade: 80, mean: 75, std: 6 }, { grade: 85, mean: 100, std: 4 }, { grade: 85, mean: 100, std: 6 }] },
    { _id: 2, grades: [{ grade: 90, mean: 100, std: 6 }, { grade: 87, mean: 100, std: 3 }, { grade: 85, mean: 100, std: 4 }] },
  ], "$[elem].mean");

  const students3 = tdb.filtered_students3;
  students3.insertMany([
    { _id: 1, grades: [{ grade: 80, mean: 75, std: 6 }, { grade: 85, mean: 100, std: 4 }, { grade: 85, mean: 100, std: 6 }] },
    { _id: 2, grades: [{ grade: 90, mean: 100, std: 6 }, { grade: 87, mean: 100, std: 3 }, { grade: 85, mean: 100, std: 4 }] },
  ]);
  students3.updateMany(
    {},
    { $inc: { "grades.$[elem].std": -1 } },
    { arrayFilters: [{ "elem.grade": { $gte: 80 }, "elem.std": { $gte: 5 } }] },
  );
  assert.docEq(all(students3), [
    { _id: 1, grades: [{ grade: 80, mean: 75, std: 5 }, { grade: 85, mean: 100, std: 4 }, { grade: 85, mean: 100, std: 5 }] },
    { _id: 2, grades: [{ grade: 90, mean: 100, std: 5 }, { grade: 87, mean: 100, std: 3 }, { grade: 85, mean: 100, std: 4 }] },
  ], "arrayFilters with two conditions");

  const alumni = tdb.filtered_alumni;
  alumni.insertMany([
    { _id: 1, name: "Christine Franklin", degrees: [{ level: "Master" }, { level: "Bachelor" }] },
    { _id: 2, name: "Reyansh Sengupta", degrees: [{ level: "Bachelor" }] },
  ]);
  alumni.updateMany({}, { $set: { "degrees.$[degree].gradcampaign": 1 } }, { arrayFilters: [{ "degree.level": { $ne: "Bachelor" } }] });
  assert.docEq(all(alumni), [
    { _id: 1, name: "Christine Franklin", degrees: [{ level: "Master", gradcampaign: 1 }, { level: "Bachelor" }] },
    { _id: 2, name: "Reyansh Sengupta", degrees: [{ level: "Bachelor" }] },
  ], "arrayFilters with $ne");

  const students4 = tdb.filtered_students4;
  students4.insertOne({
    _id: 1,
    grades: [
      { type: "quiz", questions: [10, 8, 5] },
      { type: "quiz", questions: [8, 9, 6] },
      { type: "hw", questions: [5, 4, 3] },
      { type: "exam", questions: [25, 10, 23, 0] },
    ],
  });
  students4.updateMany(
    {},
    { $inc: { "grades.$[t].questions.$[score]": 2 } },
    { arrayFilters: [{ "t.type": "quiz" }, { score: { $gte: 8 } }] },
  );
  assert.docEq(one(students4, 1), {
    _id: 1,
    grades: [
      { type: "quiz", questions: [12, 10, 5] },
      { type: "quiz", questions: [10, 11, 6] },
      { type: "hw", questions: [5, 4, 3] },
      { type: "exam", questions: [25, 10, 23, 0] },
    ],
  }, "nested $[t] and $[score]");

  // Upsert with an exact array match: "{ "_id" : ObjectId(...), "myArray" : [ 2, 1 ] }".
  const upsert = tdb.filtered_upsert;
  upsert.updateOne({ myArray: [0, 1] }, { $set: { "myArray.$[element]": 2 } }, { arrayFilters: [{ element: 0 }], upsert: true });
  assert.eq(upsert.findOne().myArray, [2, 1], "$[element] upsert document");
  // Without an equality match on the array the upsert fails with "The path
  // 'myArray' must exist in the document in order to apply array updates."
  const array = tdb.filtered_array;
  const e = assert.throwsWithCode(
    () => array.updateOne({}, { $set: { "myArray.$[element]": 10 } }, { arrayFilters: [{ element: 9 }], upsert: true }),
    2,
    "$[element] upsert without the array",
  );
  assert.eq(e.errmsg, "The path 'myArray' must exist in the document in order to apply array updates.", "upsert error message");
}

// --- updateOne / updateMany / replaceOne, with upsert ----------------------
{
  const restaurant = tdb.updateOne_restaurant;
  restaurant.insertMany([
    { _id: 1, name: "Central Perk Cafe", Borough: "Manhattan" },
    { _id: 2, name: "Rock A Feller Bar and Grill", Borough: "Queens", violations: 2 },
    { _id: 3, name: "Empire State Pub", Borough: "Brooklyn", violations: 0 },
  ]);
  let res = restaurant.updateOne({ name: "Central Perk Cafe" }, { $set: { violations: 3 } });
  assert.eq([res.acknowledged, res.matchedCount, res.modifiedCount].join(), "true,1,1", "updateOne result");
  res = restaurant.updateOne({ name: "No Such Place" }, { $set: { violations: 3 } });
  assert.eq([res.acknowledged, res.matchedCount, res.modifiedCount].join(), "true,0,0", "updateOne without a match");
  // Upsert: { matchedCount: 0, modifiedCount: 0, upsertedId: 4, upsertedCount: 1 }
  // (mongosh reports upsertedId as insertedId).
  res = restaurant.updateOne(
    { name: "Pizza Rat's Pizzaria" },
    { $set: { _id: 4, violations: 7, borough: "Manhattan" } },
    { upsert: true },
  );
  assert.eq([res.matchedCount, res.modifiedCount, res.upsertedCount, res.insertedId].join(), "0,0,1,4", "updateOne upsert result");
  // "The name field was filled in using the filter criteria, while the update
  // operators were used to create the rest of the document." (The page's
  // listing spells the field Borough and has typos; the operation sets
  // borough.)
  assert.docEq(one(restaurant, 4), { _id: 4, name: "Pizza Rat's Pizzaria", violations: 7, borough: "Manhattan" }, "upserted document");
  res = restaurant.updateOne({ violations: { $gt: 10 } }, { $set: { Closed: true } }, { upsert: true });
  assert.eq([res.matchedCount, res.modifiedCount, res.upsertedCount].join(), "0,0,1", "upsert with a non-equality filter");
  assert(res.insertedId instanceof ObjectId, "generated upsertedId: " + res.insertedId);
  assert.docEq(restaurant.findOne({ _id: res.insertedId }), { _id: res.insertedId, Closed: true }, "only the update criteria");

  const inspectors = tdb.updateMany_inspectors;
  inspectors.insertMany([
    { _id: 92412, inspector: "F. Drebin", Sector: 1, Patrolling: true },
    { _id: 92413, inspector: "J. Clouseau", Sector: 2, Patrolling: false },
    { _id: 92414, inspector: "J. Clouseau", Sector: 3, Patrolling: true },
    { _id: 92415, inspector: "R. Coltrane", Sector: 3, Patrolling: false },
  ]);
  res = inspectors.updateMany({ Sector: { $gt: 4 }, inspector: "R. Coltrane" }, { $set: { Patrolling: false } }, { upsert: true });
  assert.eq([res.matchedCount, res.modifiedCount, res.upsertedCount].join(), "0,0,1", "updateMany upsert result");
  assert(res.insertedId instanceof ObjectId, "updateMany upsertedId: " + res.insertedId);
  assert.docEq(
    inspectors.findOne({ _id: res.insertedId }),
    { _id: res.insertedId, inspector: "R. Coltrane", Patrolling: false },
    "updateMany upsert: equality conditions and update modifiers",
  );
  assert.eq(inspectors.find().toArray().length, 5, "updateMany upsert adds one document");

  const replace = tdb.replaceOne_restaurant;
  replace.insertMany([
    { _id: 1, name: "Central Perk Cafe", Borough: "Manhattan" },
    { _id: 2, name: "Rock A Feller Bar and Grill", Borough: "Queens", violations: 2 },
    { _id: 3, name: "Empire State Pub", Borough: "Brooklyn", violations: 0 },
  ]);
  res = replace.replaceOne({ name: "Central Perk Cafe" }, { name: "Central Pork Cafe", Borough: "Manhattan" });
  assert.eq([res.acknowledged, res.matchedCount, res.modifiedCount].join(), "true,1,1", "replaceOne result");
  assert.docEq(one(replace, 1), { _id: 1, name: "Central Pork Cafe", Borough: "Manhattan" }, "replaced document");
  res = replace.replaceOne(
    { name: "Pizza Rat's Pizzaria" },
    { _id: 4, name: "Pizza Rat's Pizzaria", Borough: "Manhattan", violations: 8 },
    { upsert: true },
  );
  assert.eq([res.matchedCount, res.modifiedCount, res.upsertedCount, res.insertedId].join(), "0,0,1,4", "replaceOne upsert result");
  assert.docEq(all(replace), [
    { _id: 1, name: "Central Pork Cafe", Borough: "Manhattan" },
    { _id: 2, name: "Rock A Feller Bar and Grill", Borough: "Queens", violations: 2 },
    { _id: 3, name: "Empire State Pub", Borough: "Brooklyn", violations: 0 },
    { _id: 4, name: "Pizza Rat's Pizzaria", Borough: "Manhattan", violations: 8 },
  ], "replaceOne upsert document");
}

// --- findOneAndUpdate / findOneAndReplace / findOneAndDelete ---------------
function grades(coll) {
  coll.insertMany([
    { _id: 6305, name: "A. MacDyver", assignment: 5, points: 24 },
    { _id: 6308, name: "B. Batlock", assignment: 3, points: 22 },
    { _id: 6312, name: "M. Tagnum", assignment: 5, points: 30 },
    { _id: 6319, name: "R. Stiles", assignment: 2, points: 12 },
    { _id: 6322, name: "A. MacDyver", assignment: 2, points: 14 },
    { _id: 6234, name: "R. Stiles", assignment: 1, points: 10 },
  ]);
  return coll;
}
{
  const g = grades(tdb.findOneAndUpdate_grades);
  let doc = g.findOneAndUpdate({ name: "A. MacDyver" }, { $inc: { points: 5 } }, { sort: { points: 1 } });
  assert.docEq(doc, { _id: 6322, name: "A. MacDyver", assignment: 2, points: 14 }, "findOneAndUpdate with sort returns the original");
  assert.eq(one(g, 6322).points, 19, "findOneAndUpdate applied");

  const g2 = grades(tdb.findOneAndUpdate_projection);
  doc = g2.findOneAndUpdate({ name: "A. MacDyver" }, { $inc: { points: 5 } }, { sort: { points: 1 }, projection: { assignment: 1, points: 1 } });
  assert.docEq(doc, { _id: 6322, assignment: 2, points: 14 }, "findOneAndUpdate with projection");

  doc = g2.findOneAndUpdate(
    { name: "A.B. Abracus" },
    { $set: { name: "A.B. Abracus", assignment: 5 }, $inc: { points: 5 } },
    { sort: { points: 1 }, upsert: true, returnNewDocument: true },
  );
  assert(doc._id instanceof ObjectId, "findOneAndUpdate upsert _id: " + doc._id);
  assert.docEq(doc, { _id: doc._id, name: "A.B. Abracus", assignment: 5, points: 5 }, "findOneAndUpdate upsert returnNewDocument");
  // "If returnNewDocument was false, the operation would return null."
  doc = g2.findOneAndUpdate({ name: "C. D. Nobody" }, { $set: { assignment: 1 } }, { upsert: true });
  assert.eq(doc, null, "findOneAndUpdate upsert without returnNewDocument");

  // arrayFilters on a single document: "The operation updates the grades
  // field for a single document" (_id 2, the first match in insertion order).
  for (const method of ["findOneAndUpdate", "updateOne"]) {
    const students = tdb["arrayFilters_" + method];
    students.insertMany([
      { _id: 1, grades: [95, 92, 90] },
      { _id: 2, grades: [98, 100, 102] },
      { _id: 3, grades: [95, 110, 100] },
    ]);
    students[method]({ grades: { $gte: 100 } }, { $set: { "grades.$[element]": 100 } }, { arrayFilters: [{ element: { $gte: 100 } }] });
    assert.docEq(all(students), [
      { _id: 1, grades: [95, 92, 90] },
      { _id: 2, grades: [98, 100, 100] },
      { _id: 3, grades: [95, 110, 100] },
    ], method + " with arrayFilters");
  }

  // arrayFilters, on a document picked by _id.
  const students2 = tdb.findOneAndUpdate_students2;
  students2.insertMany([
    { _id: 1, grades: [{ grade: 80, mean: 75, std: 6 }, { grade: 85, mean: 90, std: 4 }, { grade: 85, mean: 85, std: 6 }] },
    { _id: 2, grades: [{ grade: 90, mean: 75, std: 6 }, { grade: 87, mean: 90, std: 3 }, { grade: 85, mean: 85, std: 4 }] },
  ]);
  students2.findOneAndUpdate({ _id: 1 }, { $set: { "grades.$[elem].mean": 100 } }, { arrayFilters: [{ "elem.grade": { $gte: 85 } }] });
  assert.docEq(all(students2), [
    { _id: 1, grades: [{ grade: 80, mean: 75, std: 6 }, { grade: 85, mean: 100, std: 4 }, { grade: 85, mean: 100, std: 6 }] },
    { _id: 2, grades: [{ grade: 90, mean: 75, std: 6 }, { grade: 87, mean: 90, std: 3 }, { grade: 85, mean: 85, std: 4 }] },
  ], "findOneAndUpdate with arrayFilters");
}
function scores(coll) {
  coll.insertMany([
    { _id: 1, team: "Fearful Mallards", score: 25000 },
    { _id: 2, team: "Tactful Mooses", score: 23500 },
    { _id: 3, team: "Aquatic Ponies", score: 19250 },
    { _id: 4, team: "Cuddly Zebras", score: 15235 },
    { _id: 5, team: "Garrulous Bears", score: 18000 },
  ]);
  return coll;
}
{
  // No sort: "finds a document with score less than 20000 and replaces it",
  // returning _id 3 (the first such document in insertion order).
  const s0 = scores(tdb.findOneAndReplace_first);
  assert.docEq(
    s0.findOneAndReplace({ score: { $lt: 20000 } }, { team: "Observant Badgers", score: 20000 }),
    { _id: 3, team: "Aquatic Ponies", score: 19250 },
    "findOneAndReplace without sort",
  );
  assert.eq(s0.find({ team: "Observant Badgers" }).toArray().length, 1, "replaces only one document");

  const s = scores(tdb.findOneAndReplace_sort);
  let doc = s.findOneAndReplace({ score: { $lt: 20000 } }, { team: "Observant Badgers", score: 20000 }, { sort: { score: 1 } });
  assert.docEq(doc, { _id: 4, team: "Cuddly Zebras", score: 15235 }, "findOneAndReplace with sort");
  assert.docEq(one(s, 4), { _id: 4, team: "Observant Badgers", score: 20000 }, "replacement keeps _id");

  const s2 = scores(tdb.findOneAndReplace_projection);
  doc = s2.findOneAndReplace(
    { score: { $lt: 22250 } },
    { team: "Therapeutic Hamsters", score: 22250 },
    { sort: { score: 1 }, projection: { _id: 0, team: 1 } },
  );
  assert.docEq(doc, { team: "Cuddly Zebras" }, "findOneAndReplace with projection");

  doc = s2.findOneAndReplace(
    { team: "Fortified Lobsters" },
    { _id: 6019, team: "Fortified Lobsters", score: 32000 },
    { upsert: true, returnDocument: "after" },
  );
  assert.docEq(doc, { _id: 6019, team: "Fortified Lobsters", score: 32000 }, "findOneAndReplace upsert");
  doc = s2.findOneAndReplace({ team: "Gallant Otters" }, { team: "Gallant Otters", score: 1 }, { upsert: true, returnDocument: "before" });
  assert.eq(doc, null, "findOneAndReplace upsert returnDocument before");
}
{
  const s = grades(tdb.findOneAndDelete_scores);
  let doc = s.findOneAndDelete({ name: "M. Tagnum" });
  assert.docEq(doc, { _id: 6312, name: "M. Tagnum", assignment: 5, points: 30 }, "findOneAndDelete");
  assert.eq(one(s, 6312), null, "findOneAndDelete deleted");

  const s2 = grades(tdb.findOneAndDelete_sort);
  doc = s2.findOneAndDelete({ name: "A. MacDyver" }, { sort: { points: 1 } });
  assert.docEq(doc, { _id: 6322, name: "A. MacDyver", assignment: 2, points: 14 }, "findOneAndDelete with sort");

  const s3 = grades(tdb.findOneAndDelete_projection);
  doc = s3.findOneAndDelete({ name: "A. MacDyver" }, { sort: { points: 1 }, projection: { assignment: 1 } });
  assert.docEq(doc, { _id: 6322, assignment: 2 }, "findOneAndDelete with projection");

  // With a write concern: the only other A. MacDyver is 6305.
  doc = s3.findOneAndDelete({ name: "A. MacDyver" }, { writeConcern: { w: 1, j: true, wtimeout: 1000 } });
  assert.docEq(doc, { _id: 6305, name: "A. MacDyver", assignment: 5, points: 24 }, "findOneAndDelete with writeConcern");
}

// --- bulkWrite ---------------------------------------------------------------
function pizzas(coll) {
  coll.insertMany([
    { _id: 0, type: "pepperoni", size: "small", price: 4 },
    { _id: 1, type: "cheese", size: "medium", price: 7 },
    { _id: 2, type: "vegan", size: "large", price: 8 },
  ]);
  return coll;
}
const pizzaOps = (secondId) => [
  { insertOne: { document: { _id: 3, type: "beef", size: "medium", price: 6 } } },
  { insertOne: { document: { _id: secondId, type: "sausage", size: "large", price: 10 } } },
  { updateOne: { filter: { type: "cheese" }, update: { $set: { price: 8 } } } },
  { deleteOne: { filter: { type: "pepperoni" } } },
  { replaceOne: { filter: { type: "vegan" }, replacement: { type: "tofu", size: "small", price: 4 } } },
];
{
  // Success: insertedCount 2, insertedIds { 0: 3, 1: 4 }, matchedCount 2,
  // modifiedCount 2, deletedCount 1, upsertedCount 0.
  const p = pizzas(tdb.bulkWrite_pizzas);
  const res = p.bulkWrite(pizzaOps(4));
  assert.eq(res.acknowledged, true, "bulkWrite acknowledged");
  assert.eq(
    [res.insertedCount, res.matchedCount, res.modifiedCount, res.deletedCount, res.upsertedCount].join(),
    "2,2,2,1,0",
    "bulkWrite counts",
  );
  assert.docEq(res.insertedIds, { 0: 3, 1: 4 }, "bulkWrite insertedIds");
  assert.docEq(all(p), [
    { _id: 1, type: "cheese", size: "medium", price: 8 },
    { _id: 2, type: "tofu", size: "small", price: 4 },
    { _id: 3, type: "beef", size: "medium", price: 6 },
    { _id: 4, type: "sausage", size: "large", price: 10 },
  ], "bulkWrite result documents");
}
{
  // Ordered, with _id 4 already present: the second insertOne fails with
  // index 1, code 11000; only the first insertOne is completed
  // (nInserted 1, nMatched 0, nModified 0, nRemoved 0).
  const p = pizzas(tdb.bulkWrite_ordered);
  p.insertOne({ _id: 4, type: "existing", size: "small", price: 1 });
  let e = null;
  try {
    p.bulkWrite(pizzaOps(4));
  } catch (err) {
    e = err;
  }
  assert(e !== null, "ordered bulkWrite throws");
  assert.eq(e.name, "MongoBulkWriteError", "BulkWriteError");
  assert.eq(e.writeErrors.length, 1, "one write error");
  assert.eq(e.writeErrors[0].index, 1, "writeErrors index");
  assert.eq(e.writeErrors[0].code, 11000, "writeErrors code");
  assert.eq(
    e.writeErrors[0].errmsg,
    "E11000 duplicate key error collection: shell_update_operators.bulkWrite_ordered index: _id_ dup key: { _id: 4 }",
    "writeErrors errmsg",
  );
  assert.eq(
    [e.result.insertedCount, e.result.matchedCount, e.result.modifiedCount, e.result.deletedCount, e.result.upsertedCount].join(),
    "1,0,0,0,0",
    "ordered bulkWrite stops at the error",
  );
  assert.eq(p.find().toArray().length, 5, "ordered: documents after the error untouched");
  assert.eq(one(p, 0).type, "pepperoni", "ordered: deleteOne not run");
}
{
  // Unordered, the second insertOne reuses _id 3: index 1, code 11000;
  // nInserted 1, nMatched 2, nModified 2, nRemoved 1.
  const p = pizzas(tdb.bulkWrite_unordered);
  let e = null;
  try {
    p.bulkWrite(pizzaOps(3), { ordered: false });
  } catch (err) {
    e = err;
  }
  assert(e !== null, "unordered bulkWrite throws");
  assert.eq(e.writeErrors.length, 1, "one write error");
  assert.eq(e.writeErrors[0].index, 1, "writeErrors index");
  assert.eq(e.writeErrors[0].code, 11000, "writeErrors code");
  assert.eq(
    e.writeErrors[0].errmsg,
    "E11000 duplicate key error collection: shell_update_operators.bulkWrite_unordered index: _id_ dup key: { _id: 3 }",
    "writeErrors errmsg",
  );
  assert.eq(
    [e.result.insertedCount, e.result.matchedCount, e.result.modifiedCount, e.result.deletedCount, e.result.upsertedCount].join(),
    "1,2,2,1,0",
    "unordered bulkWrite runs everything else",
  );
  assert.docEq(all(p), [
    { _id: 1, type: "cheese", size: "medium", price: 8 },
    { _id: 2, type: "tofu", size: "small", price: 4 },
    { _id: 3, type: "beef", size: "medium", price: 6 },
  ], "unordered bulkWrite result documents");
}

assert.commandWorked(tdb.dropDatabase());
