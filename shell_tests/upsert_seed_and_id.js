// Upserts (issue #19), as MongoDB: the inserted document is seeded from the
// filter's equalities, including those of a one-clause $or (which MongoDB
// simplifies to its clause) at the top level or inside $and; a replacement
// takes the filter's _id, and one whose own _id differs is refused
// (66 ImmutableField) with nothing inserted.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_upsert_seed_and_id");
assert.commandWorked(tdb.dropDatabase());
const coll = tdb.c;

function upsert(q, u) {
  return commandReply(tdb, { update: "c", updates: [{ q: q, u: u, upsert: true }] });
}
function upsertedDoc(res) {
  assert.commandWorked(res);
  assert.eq(res.upserted.length, 1, JSON.stringify(res));
  return coll.findOne({ _id: res.upserted[0]._id });
}

let doc = upsertedDoc(upsert({ $and: [{ $or: [{ k: 7 }] }, { j: 1 }] }, { $set: { y: 1 } }));
assert.eq([doc.k, doc.j, doc.y], [7, 1, 1]);
doc = upsertedDoc(upsert({ $or: [{ k: 8 }] }, { $set: { y: 2 } }));
assert.eq([doc.k, doc.y], [8, 2]);
doc = upsertedDoc(upsert({ $or: [{ "n.m": 9 }] }, { $set: { y: 3 } }));
assert.eq(doc.n, { m: 9 });
// Two clauses fix nothing.
doc = upsertedDoc(upsert({ $or: [{ k: 10 }, { k: 11 }] }, { $set: { y: 4 } }));
assert.eq(doc.k, undefined);

// Replacement: the filter's _id is taken; a different one is refused.
doc = upsertedDoc(upsert({ _id: 5 }, { x: 1 }));
assert.eq(doc, { _id: 5, x: 1 });
doc = upsertedDoc(upsert({ _id: 6 }, { _id: 6, x: 2 }));
assert.eq(doc, { _id: 6, x: 2 });
const res = upsert({ _id: 20 }, { _id: 21, x: 3 });
assert.eq(res.writeErrors && res.writeErrors[0].code, 66, JSON.stringify(res));
assert.eq(coll.countDocuments({ _id: { $in: [20, 21] } }), 0);

print("upsert_seed_and_id: ok");
