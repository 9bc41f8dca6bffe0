// The MongoDB manual's index examples, created as written, with explain()
// checked to pick them (and not pick them where the manual says a query
// cannot use them):
//   https://www.mongodb.com/docs/manual/core/indexes/index-types/index-single/
//   https://www.mongodb.com/docs/manual/core/indexes/index-types/index-compound/
//   https://www.mongodb.com/docs/manual/core/indexes/index-types/index-multikey/
//   https://www.mongodb.com/docs/manual/core/index-partial/
//   https://www.mongodb.com/docs/manual/core/index-sparse/
//   https://www.mongodb.com/docs/manual/core/index-unique/
// Each collection also gets unrelated filler documents, so that an index
// scan is cheaper than reading the collection (tigerdoc costs plans by the
// index keys their bounds hold).
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_indexes");
assert.commandWorked(tdb.dropDatabase());

function fill(coll, make) {
  const filler = [];
  for (let i = 0; i < 30; i++) filler.push(make ? make(i) : { filler: i });
  coll.insertMany(filler);
}

// The index the winning plan scans ("COLLSCAN" when none), searching
// tigerdoc's per-shard plans (queryPlanner.winningPlan.shards[i].winningPlan).
function planOf(explain) {
  let found = "COLLSCAN";
  (function walk(stage) {
    if (!stage || typeof stage !== "object") return;
    if (stage.stage === "IXSCAN") found = stage.indexName;
    for (const key of ["inputStage", "winningPlan"]) walk(stage[key]);
    for (const key of ["inputStages", "shards"]) (stage[key] || []).forEach(walk);
  })(explain.queryPlanner.winningPlan);
  return found;
}

// --- Single field -----------------------------------------------------------
{
  const records = tdb.records;
  records.insertMany([
    { score: 1034, location: { state: "NY", city: "New York" } },
    { score: 1200, location: { state: "CA", city: "San Francisco" } },
    { score: 1034, location: { state: "CA", city: "Los Angeles" } },
  ]);
  fill(records);
  assert.eq(records.createIndex({ score: 1 }), "score_1");
  assert.eq(planOf(records.find({ score: 1034 }).explain()), "score_1", "equality on score");
  assert.eq(planOf(records.find({ score: { $gt: 1100 } }).explain()), "score_1", "range on score");
  assert.eq(records.find({ score: 1034 }).toArray().length, 2);
  // An index on an embedded field.
  assert.eq(records.createIndex({ "location.state": 1 }), "location.state_1");
  assert.eq(planOf(records.find({ "location.state": "CA" }).explain()), "location.state_1");
  assert.eq(records.find({ "location.state": "CA" }).toArray().length, 2);
  // Exact bounds: every key examined is a result.
  const stats = records.find({ score: 1034 }).explain("executionStats").executionStats;
  assert.eq(stats.totalKeysExamined, 2, "keysExamined");
  assert.eq(stats.totalDocsExamined, 2, "docsExamined");
}

// --- Compound -----------------------------------------------------------------
{
  const products = tdb.products;
  products.insertMany([
    { item: "Banana", category: ["food", "produce", "grocery"], location: "4th Street Store", stock: 4, type: "cases" },
    { item: "Banana", stock: 10 },
    { item: "Apple", stock: 12 },
  ]);
  fill(products);
  assert.eq(products.createIndex({ item: 1, stock: 1 }), "item_1_stock_1");
  assert.eq(planOf(products.find({ item: "Banana" }).explain()), "item_1_stock_1", "prefix");
  assert.eq(planOf(products.find({ item: "Banana", stock: { $gt: 5 } }).explain()), "item_1_stock_1");
  assert.eq(products.find({ item: "Banana", stock: { $gt: 5 } }).toArray().length, 1);
  // A query on the second field alone gives the index no leading bounds.
  assert.eq(planOf(products.find({ stock: { $gt: 5 } }).explain()), "COLLSCAN", "not a prefix");
  // A covered query: the projection needs only key fields.
  const covered = products.find({ item: "Apple" }, { item: 1, stock: 1, _id: 0 }).explain("executionStats");
  assert.eq(covered.executionStats.totalDocsExamined, 0, "covered query reads no documents");
  assert.docEq(products.find({ item: "Apple" }, { item: 1, stock: 1, _id: 0 }).toArray(), [{ item: "Apple", stock: 12 }]);
}

// --- Multikey -----------------------------------------------------------------
{
  const inventory = tdb.inventory;
  inventory.insertMany([
    { _id: 5, type: "food", item: "aaa", ratings: [5, 8, 9] },
    { _id: 6, type: "food", item: "bbb", ratings: [5, 9] },
    { _id: 7, type: "food", item: "ccc", ratings: [9, 5, 8] },
    { _id: 8, type: "food", item: "ddd", ratings: [9, 5] },
    { _id: 9, type: "food", item: "eee", ratings: [5, 9, 5] },
  ]);
  fill(inventory);
  assert.eq(inventory.createIndex({ ratings: 1 }), "ratings_1");
  const plan = inventory.find({ ratings: [5, 9] }).explain();
  assert.eq(planOf(plan), "ratings_1", "array equality uses the multikey index");
  assert.eq(inventory.find({ ratings: [5, 9] }).toArray().map((d) => d._id).join(), "6");
  // Each matching document once, though it has several matching keys.
  assert.eq(inventory.find({ ratings: { $gte: 8 } }).toArray().length, 5);
  assert.eq(planOf(inventory.find({ ratings: { $elemMatch: { $gte: 6, $lte: 8 } } }).explain()), "ratings_1");
}

// --- Partial ------------------------------------------------------------------
{
  const restaurants = tdb.restaurants;
  restaurants.insertMany([
    { name: "Bella", cuisine: "Italian", rating: 9 },
    { name: "Luigi", cuisine: "Italian", rating: 4 },
    { name: "Sakura", cuisine: "Japanese", rating: 7 },
  ]);
  fill(restaurants);
  assert.eq(
    restaurants.createIndex({ cuisine: 1, name: 1 }, { partialFilterExpression: { rating: { $gt: 5 } } }),
    "cuisine_1_name_1",
  );
  assert.eq(planOf(restaurants.find({ cuisine: "Italian", rating: { $gte: 8 } }).explain()), "cuisine_1_name_1",
    "the filter implies rating > 5");
  assert.eq(planOf(restaurants.find({ cuisine: "Italian", rating: { $lt: 8 } }).explain()), "COLLSCAN",
    "rating < 8 may hold documents the index lacks");
  assert.eq(planOf(restaurants.find({ cuisine: "Italian" }).explain()), "COLLSCAN");
  assert.eq(restaurants.find({ cuisine: "Italian", rating: { $lt: 8 } }).toArray().length, 1);
}

// --- Sparse -------------------------------------------------------------------
{
  const scores = tdb.scores;
  scores.insertMany([
    { _id: ObjectId("523b6e32fb408eea0eec2647"), userid: "newbie" },
    { _id: ObjectId("523b6e61fb408eea0eec2648"), userid: "abby", score: 82 },
    { _id: ObjectId("523b6e6ffb408eea0eec2649"), userid: "nina", score: 90 },
  ]);
  fill(scores);
  assert.eq(scores.createIndex({ score: 1 }, { sparse: true }), "score_1");
  assert.eq(planOf(scores.find({ score: { $lt: 90 } }).explain()), "score_1");
  assert.eq(scores.find({ score: { $lt: 90 } }).toArray().map((d) => d.userid).join(), "abby");
  // The manual: a sort alone cannot use the sparse index (documents without
  // score would be lost) ...
  assert.eq(planOf(scores.find().sort({ score: -1 }).explain()), "COLLSCAN");
  assert.eq(scores.find({ userid: { $exists: true } }).sort({ score: -1 }).toArray().length, 3);
  // ... unless it is hinted, which returns only the indexed documents.
  assert.eq(scores.find().sort({ score: -1 }).hint({ score: 1 }).toArray().length, 2);
  assert.eq(planOf(scores.find({ score: null }).explain()), "COLLSCAN", "null also finds missing fields");
}

// --- Unique -------------------------------------------------------------------
{
  const members = tdb.members;
  members.insertMany([{ user_id: 1 }, { user_id: 2 }]);
  // (Documents without user_id would all key as null: duplicates.)
  fill(members, (i) => ({ user_id: 100 + i }));
  assert.eq(members.createIndex({ user_id: 1 }, { unique: true }), "user_id_1");
  assert.eq(planOf(members.find({ user_id: 2 }).explain()), "user_id_1");
  const plan = members.find({ user_id: 2 }).explain().queryPlanner.winningPlan;
  assert.eq(JSON.stringify(plan).includes('"isUnique":true'), true, "isUnique in explain");
  assert.throwsWithCode(() => members.insertOne({ user_id: 2 }), 11000);
}

// --- hint ---------------------------------------------------------------------
{
  const records = tdb.records;
  assert.eq(planOf(records.find({ score: 1034 }).hint("location.state_1").explain()), "location.state_1");
  assert.eq(planOf(records.find({ score: 1034 }).hint({ $natural: 1 }).explain()), "COLLSCAN");
  assert.throwsWithCode(() => records.find({}).hint("nope").toArray(), 2);
  // aggregate takes the same hint for its collection scan.
  const agg = records.explain().aggregate([{ $match: { score: 1034 } }], { hint: "location.state_1" });
  assert.eq(JSON.stringify(agg).includes('"indexName":"location.state_1"'), true, "hinted aggregate plan");
  assert.eq(JSON.stringify(agg).includes('"indexName":"score_1"'), false, "hint overrides the planner");
  assert.eq(records.aggregate([{ $match: { score: 1034 } }], { hint: { "location.state": 1 } }).toArray().length, 2);
  assert.throwsWithCode(() => records.aggregate([], { hint: "nope" }).toArray(), 2);
}

// --- $indexStats --------------------------------------------------------------
{
  const used = tdb.used;
  fill(used, (i) => ({ a: i, b: i % 3 }));
  used.createIndex({ a: 1 });
  used.createIndex({ b: 1 });
  for (let i = 0; i < 3; i++) used.find({ a: i }).toArray();
  const stats = {};
  for (const s of used.aggregate([{ $indexStats: {} }]).toArray()) stats[s.name] = s;
  assert.eq(Object.keys(stats).sort(), ["_id_", "a_1", "b_1"]);
  assert.eq(Number(stats.a_1.accesses.ops), 3, "three finds used a_1");
  assert.eq(Number(stats.b_1.accesses.ops), 0, "b_1 unused");
  assert.eq(stats.a_1.spec.key.a, 1);
  assert.eq(stats.a_1.accesses.since instanceof Date, true);
  const onlyA = used.aggregate([{ $indexStats: {} }, { $match: { name: "a_1" } }, { $project: { name: 1 } }]).toArray();
  assert.eq(onlyA.length, 1);
  assert.throwsWithCode(() => used.aggregate([{ $match: {} }, { $indexStats: {} }]).toArray(), 40602);
}

print("indexes.js: ok");
