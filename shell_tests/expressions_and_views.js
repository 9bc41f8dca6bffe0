// The aggregation expression language outside aggregate, and views, with
// the examples of their MongoDB manual pages and the results they document:
//   https://www.mongodb.com/docs/manual/reference/operator/query/expr/
//   https://www.mongodb.com/docs/manual/tutorial/update-documents-with-aggregation-pipeline/
//   https://www.mongodb.com/docs/manual/reference/method/db.collection.find/ (projection with
//     aggregation expressions)
//   https://www.mongodb.com/docs/manual/core/views/create-view/
//
// Unsorted results are compared by _id. $$NOW-valued fields are checked
// for type and recency rather than value.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_expressions_and_views");
assert.commandWorked(tdb.dropDatabase());

function byId(docs) {
  return docs.sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}

// --- $expr: compare two fields of one document ---------------------------
{
  const monthlyBudget = tdb.monthlyBudget;
  monthlyBudget.insertMany([
    { _id: 1, category: "food", budget: 400, spent: 450 },
    { _id: 2, category: "drinks", budget: 100, spent: 150 },
    { _id: 3, category: "clothes", budget: 100, spent: 50 },
    { _id: 4, category: "misc", budget: 500, spent: 300 },
    { _id: 5, category: "travel", budget: 200, spent: 650 },
  ]);
  assert.docEq(byId(monthlyBudget.find({ $expr: { $gt: ["$spent", "$budget"] } }).toArray()), [
    { _id: 1, category: "food", budget: 400, spent: 450 },
    { _id: 2, category: "drinks", budget: 100, spent: 150 },
    { _id: 5, category: "travel", budget: 200, spent: 650 },
  ]);
  // countDocuments runs the same filter in an aggregation $match.
  assert.eq(monthlyBudget.countDocuments({ $expr: { $lt: ["$spent", "$budget"] } }), 2);
  // find with `let`.
  const res = tdb.runCommand({
    find: "monthlyBudget",
    filter: { $expr: { $eq: ["$category", "$$cat"] } },
    let: { cat: "misc" },
  });
  assert.commandWorked(res);
  assert.docEq(res.cursor.firstBatch, [{ _id: 4, category: "misc", budget: 500, spent: 300 }]);
  assert.commandFailedWithCode(
    () => tdb.runCommand({ find: "monthlyBudget", filter: { $expr: { $divide: ["$spent", 0] } } }),
    2
  );
}

// --- $expr with conditional statements -----------------------------------
{
  const supplies = tdb.supplies;
  supplies.insertMany([
    { _id: 1, item: "binder", qty: NumberInt("100"), price: NumberDecimal("12") },
    { _id: 2, item: "notebook", qty: NumberInt("200"), price: NumberDecimal("8") },
    { _id: 3, item: "pencil", qty: NumberInt("50"), price: NumberDecimal("6") },
    { _id: 4, item: "eraser", qty: NumberInt("150"), price: NumberDecimal("3") },
    { _id: 5, item: "legal pad", qty: NumberInt("42"), price: NumberDecimal("10") },
  ]);
  const discountedPrice = {
    $cond: {
      if: { $gte: ["$qty", 100] },
      then: { $multiply: ["$price", NumberDecimal("0.50")] },
      else: { $multiply: ["$price", NumberDecimal("0.75")] },
    },
  };
  assert.docEq(
    byId(supplies.find({ $expr: { $lt: [discountedPrice, 5] } }).toArray()).map((d) => d.item),
    ["notebook", "pencil", "eraser"]
  );
}

// --- Updates with an aggregation pipeline ---------------------------------
{
  const students = tdb.students;
  students.insertMany([
    { _id: 1, test1: 95, test2: 92, test3: 90, modified: new Date("01/05/2020") },
    { _id: 2, test1: 98, test2: 100, test3: 102, modified: new Date("01/05/2020") },
    { _id: 3, test1: 95, test2: 110, modified: new Date("01/04/2020") },
  ]);
  const before = new Date();
  assert.commandWorked(students.updateOne({ _id: 3 }, [{ $set: { test3: 98, modified: "$$NOW" } }]));
  const three = students.findOne({ _id: 3 });
  assert.eq(three.test3, 98);
  assert(three.modified instanceof Date && three.modified.getTime() >= before.getTime() - 1000,
         "modified is $$NOW");

  const students2 = tdb.students2;
  students2.insertMany([
    { _id: 1, quiz1: 8, test2: 100, quiz2: 9, modified: new Date("01/05/2020") },
    { _id: 2, quiz2: 5, test1: 80, test2: 89, modified: new Date("01/05/2020") },
  ]);
  const r = students2.updateMany({}, [
    {
      $replaceRoot: {
        newRoot: { $mergeObjects: [{ quiz1: 0, quiz2: 0, test1: 0, test2: 0 }, "$$ROOT"] },
      },
    },
    { $set: { modified: "$$NOW" } },
  ]);
  assert.eq(r.modifiedCount, 2);
  const s2 = students2.findOne({ _id: 2 }, { modified: 0 });
  assert.docEq(s2, { _id: 2, quiz1: 0, quiz2: 5, test1: 80, test2: 89 });

  const students3 = tdb.students3;
  students3.insertMany([
    { _id: 1, tests: [95, 92, 90], modified: new Date("01/05/2020") },
    { _id: 2, tests: [94, 88, 90], modified: new Date("01/05/2020") },
    { _id: 3, tests: [70, 75, 82], modified: new Date("01/05/2020") },
  ]);
  students3.updateMany({}, [
    { $set: { average: { $trunc: [{ $avg: "$tests" }, 0] }, modified: "$$NOW" } },
    {
      $set: {
        grade: {
          $switch: {
            branches: [
              { case: { $gte: ["$average", 90] }, then: "A" },
              { case: { $gte: ["$average", 80] }, then: "B" },
              { case: { $gte: ["$average", 70] }, then: "C" },
              { case: { $gte: ["$average", 60] }, then: "D" },
            ],
            default: "F",
          },
        },
      },
    },
  ]);
  assert.docEq(
    byId(students3.find({}, { modified: 0 }).toArray()),
    [
      { _id: 1, tests: [95, 92, 90], average: 92, grade: "A" },
      { _id: 2, tests: [94, 88, 90], average: 90, grade: "A" },
      { _id: 3, tests: [70, 75, 82], average: 75, grade: "C" },
    ]
  );

  // Update with let variables (the manual's "Update with let Variables").
  const cakeFlavors = tdb.cakeFlavors;
  cakeFlavors.insertMany([
    { _id: 1, flavor: "chocolate" },
    { _id: 2, flavor: "strawberry" },
    { _id: 3, flavor: "cherry" },
  ]);
  assert.commandWorked(
    tdb.runCommand({
      update: "cakeFlavors",
      updates: [
        { q: { $expr: { $eq: ["$flavor", "$$targetFlavor"] } }, u: [{ $set: { flavor: "$$newFlavor" } }] },
      ],
      let: { targetFlavor: "cherry", newFlavor: "orange" },
    })
  );
  assert.docEq(byId(cakeFlavors.find().toArray()), [
    { _id: 1, flavor: "chocolate" },
    { _id: 2, flavor: "strawberry" },
    { _id: 3, flavor: "orange" },
  ]);

  // Stages an update pipeline may not hold.
  assert.commandFailedWithCode(() => students.updateOne({}, [{ $match: { _id: 1 } }]), 72);
}

// --- find projection with aggregation expressions ------------------------
{
  const inventory = tdb.inventory;
  inventory.insertOne({ _id: 1, item: "postcard", status: "A", instock: [{ warehouse: "B", qty: 15 }] });
  assert.docEq(
    inventory.findOne(
      { _id: 1 },
      { _id: 0, item: 1, status: { $switch: { branches: [{ case: { $eq: ["$status", "A"] }, then: "Available" }],
                                                default: "No status found" } },
        area: { $concat: ["$item", " ", "$status"] }, reportNumber: { $literal: 1 } }
    ),
    { item: "postcard", status: "Available", area: "postcard A", reportNumber: 1 }
  );
  assert.commandFailedWithCode(
    () => tdb.runCommand({ find: "inventory", projection: { item: 0, total: { $add: [1, 2] } } }),
    31252
  );
}

// --- Views: create and query (the manual's students example) --------------
{
  const students = tdb.vstudents;
  students.insertMany([
    { sID: 22001, name: "Alex", year: 1, score: 4.0 },
    { sID: 21001, name: "bernie", year: 2, score: 3.7 },
    { sID: 20010, name: "Chris", year: 3, score: 2.5 },
    { sID: 22021, name: "Drew", year: 1, score: 3.2 },
    { sID: 17301, name: "harley", year: 6, score: 3.1 },
    { sID: 21022, name: "Farmer", year: 1, score: 2.2 },
    { sID: 20020, name: "george", year: 3, score: 2.8 },
    { sID: 18020, name: "Harley", year: 5, score: 2.8 },
  ]);
  assert.commandWorked(tdb.createView("firstYears", "vstudents", [{ $match: { year: 1 } }]));
  assert.docEq(tdb.firstYears.find({}, { _id: 0 }).sort({ sID: 1 }).toArray(), [
    { sID: 21022, name: "Farmer", year: 1, score: 2.2 },
    { sID: 22001, name: "Alex", year: 1, score: 4 },
    { sID: 22021, name: "Drew", year: 1, score: 3.2 },
  ]);
  assert.eq(tdb.firstYears.countDocuments({}), 3);
  assert.eq(tdb.firstYears.find().count(), 3);
  assert.docEq(tdb.firstYears.distinct("name").sort(), ["Alex", "Drew", "Farmer"]);
  const info = tdb.getCollectionInfos({ name: "firstYears" });
  assert.docEq(info, [
    {
      name: "firstYears",
      type: "view",
      options: { viewOn: "vstudents", pipeline: [{ $match: { year: 1 } }] },
      info: { readOnly: true },
    },
  ]);
  // A view of a view.
  assert.commandWorked(
    tdb.createView("goodFirstYears", "firstYears", [{ $match: { score: { $gte: 3 } } }, { $project: { _id: 0, name: 1 } }])
  );
  assert.docEq(tdb.goodFirstYears.aggregate([{ $sort: { name: 1 } }]).toArray(), [
    { name: "Alex" },
    { name: "Drew" },
  ]);
  // Views are read-only.
  assert.commandFailedWithCode(() => tdb.firstYears.insertOne({ name: "x" }), 166);
  assert.commandFailedWithCode(() => tdb.firstYears.updateOne({}, { $set: { a: 1 } }), 166);
  assert.commandFailedWithCode(() => tdb.firstYears.deleteMany({}), 166);
  // Cycles are refused.
  assert.commandWorked(tdb.createView("cycleA", "cycleB", []));
  assert.commandFailedWithCode(() => tdb.runCommand({ create: "cycleB", viewOn: "cycleA", pipeline: [] }), 5);
  // drop removes a view.
  assert(tdb.goodFirstYears.drop(), "drop of a view");
  assert.eq(tdb.getCollectionInfos({ name: "goodFirstYears" }).length, 0);
}

// --- Explain of views and aggregate execution stats ------------------------
// A read of a view explains as the aggregation it runs (mongos's split
// shape, each tigerdoc shard table a shard); executionStats runs it.
{
  // Sums a number over the shards of a split aggregate explain.
  function overShards(explain, pick) {
    return Object.values(explain.shards).reduce((sum, shard) => sum + Number(pick(shard.stages)), 0);
  }
  const plan = tdb.firstYears.find({ score: { $gte: 3 } }).explain();
  assert.eq(plan.splitPipeline.shardsPart[0], { $match: { year: 1 } }, "the view's stage first");
  assert.eq(plan.splitPipeline.shardsPart[1], { $match: { score: { $gte: 3 } } }, "then the find's filter");
  const cursorPlan = Object.values(plan.shards)[0].stages[0].$cursor.queryPlanner;
  assert.eq(cursorPlan.namespace, "shell_expressions_and_views.vstudents", "the collection's plan");

  const stats = tdb.firstYears.find({ score: { $gte: 3 } }).explain("executionStats");
  assert.eq(overShards(stats, (stages) => stages[0].$cursor.executionStats.totalDocsExamined), 8);
  assert.eq(overShards(stats, (stages) => stages[0].nReturned), 3, "first years");
  assert.eq(overShards(stats, (stages) => stages[1].nReturned), 2, "scoring 3 or more");
  const counted = tdb.firstYears.explain("executionStats").count({ score: { $gte: 3 } });
  assert.eq(counted.splitPipeline.mergerPart[1], { $count: "count" });

  const agg = tdb.vstudents
    .explain("executionStats")
    .aggregate([{ $match: { year: { $lte: 3 } } }, { $project: { name: 1 } }, { $group: { _id: null, n: { $sum: 1 } } }]);
  assert.eq(overShards(agg, (stages) => stages[0].$cursor.executionStats.nReturned), 6);
  assert.eq(overShards(agg, (stages) => stages[1].nReturned), 6, "$project on the shards");
  assert(agg.splitPipeline.mergerPart[1].$group, "the $group merges");
  // aggregate {explain: true} plans only.
  const planned = tdb.vstudents.explain().aggregate([{ $match: { year: 1 } }]);
  assert.eq(Object.values(planned.shards)[0].stages[0].$cursor.executionStats, undefined);
}

print("expressions_and_views.js: ok");
