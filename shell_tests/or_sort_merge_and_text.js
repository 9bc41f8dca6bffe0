// OR plans seen from mongosh (issue #19, MongoDB 7 the reference):
//  * a sorted $or whose every branch has an index giving the sort is a
//    SORT_MERGE of the branch scans (one forward, one backward here), no
//    SORT stage; each answer equals a collection scan plus a sort, across
//    getMore batches, with skip and limit; a document of both branches
//    comes once;
//  * $text as a branch of an $or inside the top-level $and (or inside an
//    $and branch of a top-level $or) runs when every other branch of that
//    $or has an index; else 291.
load(__dirname + "/lib/assert.js");
load(__dirname + "/lib/explain.js");

const tdb = db.getSiblingDB("shell_or_sort_merge_and_text");
assert.commandWorked(tdb.dropDatabase());

function stage(explain, name) { return stagesOf(explain).find((s) => s.stage === name); }

assert.commandWorked(tdb.createCollection("orders", { shards: 3 }));
const c = tdb.orders;
const docs = [];
for (let i = 0; i < 1500; i++) {
  docs.push({ _id: i, shop: i % 10, region: i % 7, total: (i * 613) % 1501, day: i % 30 });
}
assert.commandWorked(c.insertMany(docs));
c.createIndex({ shop: 1, total: 1 });
c.createIndex({ region: 1, total: -1 });

const filter = { $or: [{ shop: 3 }, { region: 2 }] };
const matching = docs.filter((d) => d.shop === 3 || d.region === 2);
function viaScan(sort, skip, limit) {
  let cur = c.find(filter).sort(sort).hint({ $natural: 1 });
  if (skip) cur = cur.skip(skip);
  if (limit) cur = cur.limit(limit);
  return cur.toArray();
}
for (const sort of [{ total: 1 }, { total: -1 }]) {
  for (const [skip, limit] of [[0, 0], [0, 1], [5, 10], [100, 101], [0, 102], [300, 0]]) {
    let cur = c.find(filter).sort(sort).batchSize(50);
    if (skip) cur = cur.skip(skip);
    if (limit) cur = cur.limit(limit);
    assert.eq(cur.toArray(), viaScan(sort, skip, limit), JSON.stringify([sort, skip, limit]));
  }
  const all = c.find(filter).sort(sort).toArray();
  assert.eq(all.length, matching.length);
  assert.eq(new Set(all.map((d) => d._id)).size, matching.length);

  const e = c.find(filter).sort(sort).explain("executionStats");
  const merge = stage(e, "SORT_MERGE");
  assert.eq(merge !== undefined, true, "SORT_MERGE expected");
  assert.eq(stage(e, "SORT"), undefined);
  const scans = stagesOf(e).filter((s) => s.stage === "IXSCAN");
  assert.eq(new Set(scans.map((s) => s.direction)).size, 2, "one branch forward, one backward");
  assert.eq(e.executionStats.nReturned, matching.length);
}
// A branch without an index giving the sort: OR and a blocking SORT.
c.createIndex({ day: 1 });
const mixed = c.find({ $or: [{ shop: 3 }, { day: 4 }] }).sort({ total: 1 });
assert.eq(stage(mixed.explain(), "SORT") !== undefined, true);
assert.eq(mixed.toArray(), c.find({ $or: [{ shop: 3 }, { day: 4 }] }).sort({ total: 1 }).hint({ $natural: 1 }).toArray());

// $text in an $or inside the top-level $and.
const n = tdb.notes;
assert.commandWorked(n.insertMany([
  { _id: 1, owner: "ann", tag: "x", body: "buy espresso beans" },
  { _id: 2, owner: "ann", tag: "y", body: "call the plumber" },
  { _id: 3, owner: "bob", tag: "y", body: "espresso machine" },
  { _id: 4, owner: "ann", tag: "z", body: "water the plants" },
]));
n.createIndex({ body: "text" });
const q = { owner: "ann", $or: [{ $text: { $search: "espresso" } }, { tag: "y" }] };
assert.commandFailedWithCode(() => n.find(q).toArray(), 291);
n.createIndex({ tag: 1 });
assert.eq(n.find(q).sort({ _id: 1 }).toArray().map((d) => d._id), [1, 2]);
assert.eq(n.countDocuments(q), 2);
assert.eq(stage(n.find(q).explain(), "TEXT_MATCH") !== undefined, true);
assert.eq(stage(n.find(q).explain(), "COLLSCAN"), undefined);
// An $and branch of a top-level $or holding the $text.
assert.eq(n.find({ $or: [{ owner: "bob", $text: { $search: "espresso" } }, { tag: "z" }] })
  .sort({ _id: 1 }).toArray().map((d) => d._id), [3, 4]);
print("or_sort_merge_and_text.js passed");
