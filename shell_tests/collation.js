// Collation from mongosh (issue #19): cursor.collation(), the collation
// option of countDocuments/distinct/aggregate/updateMany/deleteMany/
// findOneAndUpdate, a collection's default collation (listed in full by
// getCollectionInfos) and an index's own, and MongoDB's codes for bad specs.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_collation");
assert.commandWorked(tdb.dropDatabase());
const ci = { locale: "en", strength: 2 };

const c = tdb.people;
assert.commandWorked(c.insertMany([
  { _id: 1, name: "Émile" }, { _id: 2, name: "emile" }, { _id: 3, name: "EMILE" },
  { _id: 4, name: "zoë" }, { _id: 5, name: "Zoe" }, { _id: 6, name: "item10" }, { _id: 7, name: "item9" },
]));

// find().collation(): strength 2 ignores case, strength 1 also accents.
assert.eq(c.find({ name: "emile" }).collation(ci).sort({ _id: 1 }).toArray().map((d) => d._id), [2, 3]);
assert.eq(c.find({ name: "emile" }).collation({ locale: "en", strength: 1 }).sort({ _id: 1 })
            .toArray().map((d) => d._id), [1, 2, 3]);
assert.eq(c.find({ name: "emile" }).toArray().map((d) => d._id), [2]);
// Sort: numericOrdering puts item9 before item10.
assert.eq(c.find({ name: /^item/ }).sort({ name: 1 }).collation({ locale: "en", numericOrdering: true })
            .toArray().map((d) => d.name), ["item9", "item10"]);
assert.eq(c.find({ name: /^item/ }).sort({ name: 1 }).toArray().map((d) => d.name), ["item10", "item9"]);

// count, distinct, aggregate.
assert.eq(c.countDocuments({ name: "ZOE" }, { collation: { locale: "en", strength: 1 } }), 2);
assert.eq(c.distinct("name", { name: { $in: ["emile", "zoe"] } }, { collation: ci }).length, 2);
const groups = c.aggregate([{ $group: { _id: "$name", n: { $sum: 1 } } }, { $match: { n: { $gt: 1 } } }],
                           { collation: { locale: "en", strength: 1 } }).toArray();
assert.eq(groups.map((g) => g.n).sort(), [2, 3]);

// Writes.
assert.eq(c.updateMany({ name: "EMILE" }, { $set: { seen: true } }, { collation: ci }).modifiedCount, 2);
assert.eq(c.findOneAndUpdate({ name: "ZOE" }, { $set: { z: 1 } }, { collation: ci, returnDocument: "after" })._id, 5);
assert.eq(c.deleteMany({ name: "emile" }, { collation: ci }).deletedCount, 2);
assert.eq(c.countDocuments({}), 5);

// A collection's default collation: listed in full, used by operations and
// new indexes without their own.
assert.commandWorked(tdb.createCollection("fr", { collation: { locale: "fr" } }));
const info = tdb.getCollectionInfos({ name: "fr" })[0];
assert.docEq(info.options.collation, {
  locale: "fr", caseLevel: false, caseFirst: "off", strength: 3, numericOrdering: false,
  alternate: "non-ignorable", maxVariable: "punct", normalization: false, backwards: false,
  version: "57.1",
});
assert.commandWorked(tdb.fr.insertMany([{ _id: 1, w: "cote" }, { _id: 2, w: "côte" }, { _id: 3, w: "Cote" }]));
assert.eq(tdb.fr.find().sort({ w: 1 }).toArray().map((d) => d._id), [1, 3, 2]);
assert.eq(tdb.fr.createIndex({ w: 1 }), "w_1");
assert.eq(tdb.fr.getIndexes()[1].collation.locale, "fr");

// Bad specs.
assert.commandFailedWithCode(commandReply(tdb, { find: "people", collation: { locale: "xx" } }), 2);
assert.commandFailedWithCode(commandReply(tdb, { find: "people", collation: { strength: 2 } }), 40414);
assert.commandFailedWithCode(commandReply(tdb, { find: "people", collation: { locale: "en", x: 1 } }), 40415);
assert.commandFailedWithCode(commandReply(tdb, { find: "people", collation: { locale: "en", strength: 9 } }), 51024);
assert.throwsWithCode(() => c.find().collation({ locale: "en", caseFirst: "no" }).toArray(), 2);
