// What an update may store (issue #19), as MongoDB 5+:
//  * a '$'-prefixed top-level field created or changed by an update of an
//    existing document is refused (52 DollarPrefixedFieldName); nested ones
//    are fine, and so is one created by an upsert's insert;
//  * writing past the end of an array pads it with nulls, up to 1,500,000
//    of them (34 CannotBackfillArray "can't backfill more than 1500000
//    elements").
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_update_storage_rules");
assert.commandWorked(tdb.dropDatabase());
const coll = tdb.c;
assert.commandWorked(coll.insertOne({ _id: 1, a: [], n: { x: 1 } }));

function update(q, u, extra) {
  return commandReply(tdb, { update: "c", updates: [Object.assign({ q: q, u: u }, extra || {})] });
}
function writeErrorCode(res) {
  return res.writeErrors && res.writeErrors.length ? res.writeErrors[0].code : null;
}

// Top-level '$' fields.
let res = update({ _id: 1 }, { $set: { $top: 1 } });
assert.eq(writeErrorCode(res), 52, JSON.stringify(res));
assert.eq(res.writeErrors[0].errmsg,
          "The dollar ($) prefixed field '$top' in '$top' is not allowed in the context of an " +
          "update's replacement document. Consider using an aggregation pipeline with $replaceWith.");
assert.eq(writeErrorCode(update({ _id: 1 }, { $rename: { n: "$moved" } })), 52);
assert.eq(coll.findOne({ _id: 1 }), { _id: 1, a: [], n: { x: 1 } });
// Nested: allowed.
assert.commandWorked(update({ _id: 1 }, { $set: { "n.$inner": 1 } }));
assert.eq(coll.findOne({ _id: 1 }).n, { x: 1, $inner: 1 });
// An upsert's insert may create one.
res = update({ _id: 2 }, { $set: { $up: 1 } }, { upsert: true });
assert.commandWorked(res);
assert.eq(res.upserted.length, 1);
assert.eq(coll.findOne({ _id: 2 }), { _id: 2, $up: 1 });
// ... and a later update that leaves it alone still works.
assert.commandWorked(update({ _id: 2 }, { $set: { b: 1 } }));
assert.eq(coll.findOne({ _id: 2 }), { _id: 2, $up: 1, b: 1 });
// ... but may not change it.
assert.eq(writeErrorCode(update({ _id: 2 }, { $inc: { $up: 1 } })), 52);

// Array padding.
res = update({ _id: 1 }, { $set: { "a.1500001": 1 } });
assert.eq(writeErrorCode(res), 34, JSON.stringify(res));
assert.eq(res.writeErrors[0].errmsg, "can't backfill more than 1500000 elements");
assert.eq(coll.findOne({ _id: 1 }).a, []);
// At the limit: 1,500,000 nulls, then the element (path_support.cpp
// maybePadTo counts the nulls only).
assert.commandWorked(coll.insertOne({ _id: 3, a: [] }));
assert.commandWorked(update({ _id: 3 }, { $set: { "a.1500000": 1 } }));
assert.eq(coll.aggregate([{ $match: { _id: 3 } }, { $project: { n: { $size: "$a" }, last: { $arrayElemAt: ["$a", -1] } } }]).toArray(),
          [{ _id: 3, n: 1500001, last: 1 }]);
// Counted from the array's current end.
assert.commandWorked(coll.insertOne({ _id: 4, a: [0] }));
assert.eq(writeErrorCode(update({ _id: 4 }, { $set: { "a.1500002": 1 } })), 34);
assert.commandWorked(update({ _id: 4 }, { $set: { "a.1500001": 1 } }));
assert.commandWorked(coll.deleteMany({ _id: { $in: [3, 4] } }));
assert.commandWorked(update({ _id: 1 }, { $set: { "a.3": 1 } }));
assert.eq(coll.findOne({ _id: 1 }).a, [null, null, null, 1]);
// A missing field is created as a document, not padded.
assert.commandWorked(update({ _id: 1 }, { $set: { "m.1500001": 1 } }));
assert.eq(coll.findOne({ _id: 1 }).m, { 1500001: 1 });

print("update_storage_rules: ok");
