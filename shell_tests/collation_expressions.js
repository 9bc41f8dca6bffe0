// The operation's collation inside aggregation expressions and accumulators
// (issue #19), as MongoDB 7 applies it: $expr in find/count/distinct/update/
// delete/findAndModify filters, $in, $indexOfArray, the set operators,
// $sortArray, $min/$max/$addToSet (accumulators and expression forms),
// $maxN/$minN, $bucket and $bucketAuto boundaries, and a collated index
// serving distinct (DISTINCT_SCAN seeks with collation keys). Each case also
// checks the simple (binary) answer, which differs.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_collation_expressions");
assert.commandWorked(tdb.dropDatabase());
const ci = { locale: "en", strength: 2 };
const c = tdb.e;
assert.commandWorked(c.insertMany([
  { _id: 1, a: "ABC", arr: ["x", "Y"] },
  { _id: 2, a: "abd", arr: ["X", "y"] },
]));
const ids = (cursor) => cursor.toArray().map((d) => d._id);
const project = (expr, collation) =>
  c.aggregate([{ $sort: { _id: 1 } }, { $project: { _id: 0, r: expr } }], collation ? { collation } : {})
    .toArray().map((d) => d.r);

// $expr in every command with a filter.
assert.eq(ids(c.find({ $expr: { $eq: ["$a", "abc"] } }).collation(ci)), [1]);
assert.eq(ids(c.find({ $expr: { $eq: ["$a", "abc"] } })), []);
assert.eq(c.countDocuments({ $expr: { $eq: ["$a", "abc"] } }, { collation: ci }), 1);
assert.eq(c.countDocuments({ $expr: { $eq: ["$a", "abc"] } }), 0);
assert.eq(c.distinct("_id", { $expr: { $lt: ["$a", "abc"] } }, { collation: ci }), []);
assert.eq(c.distinct("_id", { $expr: { $lt: ["$a", "abc"] } }), [1]);
assert.eq(c.updateMany({ $expr: { $eq: ["$a", "abc"] } }, { $set: { u: 1 } }, { collation: ci }).modifiedCount, 1);
assert.eq(c.updateMany({ $expr: { $eq: ["$a", "abc"] } }, { $set: { u: 2 } }).modifiedCount, 0);
assert.eq(c.findOneAndUpdate({ $expr: { $eq: ["$a", "ABD"] } }, { $set: { f: 1 } }, { collation: ci })._id, 2);
assert.eq(c.findOneAndUpdate({ $expr: { $eq: ["$a", "ABD"] } }, { $set: { f: 1 } }), null);
assert.commandWorked(c.insertOne({ _id: 3, a: "ZZZ" }));
assert.eq(c.deleteMany({ $expr: { $eq: ["$a", "zzz"] } }).deletedCount, 0);
assert.eq(c.deleteMany({ $expr: { $eq: ["$a", "zzz"] } }, { collation: ci }).deletedCount, 1);

// Array and set expressions.
assert.eq(project({ $in: ["abc", ["ABC"]] }, ci), [true, true]);
assert.eq(project({ $in: ["abc", ["ABC"]] }), [false, false]);
assert.eq(project({ $indexOfArray: ["$arr", "y"] }, ci), [1, 1]);
assert.eq(project({ $indexOfArray: ["$arr", "y"] }), [-1, 1]);
assert.eq(project({ $setEquals: ["$arr", ["x", "y"]] }, ci), [true, true]);
assert.eq(project({ $setEquals: ["$arr", ["x", "y"]] }), [false, false]);
assert.eq(project({ $size: { $setUnion: ["$arr", ["x", "y"]] } }, ci), [2, 2]);
assert.eq(project({ $size: { $setUnion: ["$arr", ["x", "y"]] } }), [3, 3]);
assert.eq(project({ $setIsSubset: [["X"], "$arr"] }, ci), [true, true]);
assert.eq(project({ $setDifference: ["$arr", ["x"]] }, ci), [["Y"], ["y"]]);
assert.eq(project({ $setIntersection: ["$arr", ["y"]] }, ci), [["Y"], ["y"]]);
assert.eq(project({ $sortArray: { input: ["b", "A", "C"], sortBy: 1 } }, ci), [["A", "b", "C"], ["A", "b", "C"]]);
assert.eq(project({ $sortArray: { input: ["b", "A", "C"], sortBy: 1 } }), [["A", "C", "b"], ["A", "C", "b"]]);
assert.eq(project({ $sortArray: { input: [{ k: "b" }, { k: "A" }], sortBy: { k: 1 } } }, ci),
          [[{ k: "A" }, { k: "b" }], [{ k: "A" }, { k: "b" }]]);
assert.eq(project({ $maxN: { input: ["b", "A", "c"], n: 1 } }, ci), [["c"], ["c"]]);
assert.eq(project({ $minN: { input: ["b", "a", "C"], n: 1 } }), [["C"], ["C"]]);
assert.eq(project({ $minN: { input: ["b", "a", "C"], n: 1 } }, ci), [["a"], ["a"]]);

// Accumulators: $min/$max and $addToSet, in $group and in expressions.
const w = tdb.words;
assert.commandWorked(w.insertMany([{ _id: 1, s: "b" }, { _id: 2, s: "A" }, { _id: 3, s: "a" }, { _id: 4, s: "C" }]));
const group = (collation) =>
  w.aggregate([{ $sort: { _id: 1 } }, { $group: { _id: null, lo: { $min: "$s" }, hi: { $max: "$s" }, set: { $addToSet: "$s" } } }],
              collation ? { collation } : {}).toArray()[0];
const g1 = group(ci);
assert.eq(g1.lo, "A");
assert.eq(g1.hi, "C");
assert.eq(g1.set.length, 3);
const g0 = group(null);
assert.eq(g0.lo, "A");
assert.eq(g0.hi, "b");
assert.eq(g0.set.length, 4);
assert.eq(project({ $max: ["b", "C"] }, ci), ["C", "C"]);
assert.eq(project({ $max: ["b", "C"] }), ["b", "b"]);
// $setWindowFields accumulators too.
const win = w.aggregate([{ $setWindowFields: { sortBy: { _id: 1 }, output: { m: { $max: "$s", window: { documents: ["unbounded", "current"] } } } } }],
                        { collation: ci }).toArray().map((d) => d.m);
assert.eq(win, ["b", "b", "b", "C"]);

// $bucket boundaries compare under the collation; $bucketAuto groups by it.
const buckets = w.aggregate([{ $bucket: { groupBy: "$s", boundaries: ["a", "c", "d"], default: "other" } }],
                            { collation: ci }).toArray();
assert.eq(buckets.map((b) => [b._id, b.count]), [["a", 3], ["c", 1]]);
const binary = w.aggregate([{ $bucket: { groupBy: "$s", boundaries: ["a", "c", "d"], default: "other" } }]).toArray();
assert.eq(binary.map((b) => [b._id, b.count]), [["a", 2], ["other", 2]]);
const auto = w.aggregate([{ $bucketAuto: { groupBy: "$s", buckets: 3 } }], { collation: ci }).toArray();
assert.eq(auto.map((b) => b.count).reduce((x, y) => x + y, 0), 4);
// "A" and "a" are one value under the collation: never split across buckets.
for (const b of auto) {
  if (b._id.min.toLowerCase() === "a") assert.gte(b.count, 2);
}

// distinct over an index with the collection's default collation: the
// DISTINCT_SCAN seeks with collation keys and returns each class once.
assert.commandWorked(tdb.createCollection("d", { collation: ci }));
assert.commandWorked(tdb.d.insertMany([
  { n: "apple" }, { n: "Banana" }, { n: "cherry" }, { n: "date" }, { n: "APPLE" }, { n: "banana" }, { n: "Éclair" },
]));
assert.eq(tdb.d.createIndex({ n: 1 }), "n_1");
const planned = tdb.d.explain().distinct("n");
assert.eq(JSON.stringify(planned).includes("DISTINCT_SCAN"), true);
const viaIndex = tdb.d.distinct("n").map((s) => s.toLowerCase()).sort();
assert.eq(viaIndex, ["apple", "banana", "cherry", "date", "éclair"]);
const viaScan = tdb.d.distinct("n", {}, { hint: { $natural: 1 } }).map((s) => s.toLowerCase()).sort();
assert.eq(viaScan, viaIndex);
print("collation_expressions.js passed");
