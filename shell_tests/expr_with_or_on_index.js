// find({$expr, $or}) over a compound index (issue #19; MongoDB's
// jstests/core/query/expr/expr_or_pushdown.js shape): the $expr conjunct is
// not a path predicate and must not be read as one when the $or is planned
// over {a: 1, b: 1} (this once failed with 146 "out of memory").
load(__dirname + "/lib/assert.js");

const coll = db.getSiblingDB("shell_expr_with_or_on_index").c;
coll.drop();
coll.createIndex({ a: 1, b: 1 });
for (let i = 0; i < 5; i++) assert.commandWorked(coll.insertOne({ _id: i, a: "a", b: "bcdef"[i] }));
assert.commandWorked(coll.insertOne({ _id: 5, a: "z", b: "d" }));

const filter = { $expr: { $eq: ["$a", "a"] }, $or: [{ b: "d" }, { b: "e" }] };
assert.eq(coll.find(filter).toArray().map((d) => d._id).sort().join(), "2,3");
assert.eq(coll.find(filter).explain("executionStats").executionStats.nReturned, 2);
assert.eq(coll.aggregate([{ $match: filter }]).toArray().map((d) => d._id).sort().join(), "2,3");
assert.eq(coll.countDocuments(filter), 2);
print("expr_with_or_on_index: ok");
