// $natural order and backward scans (issue #19):
//  * hint/sort {$natural: 1} and {$natural: -1}: the collection scan and its
//    exact reverse (explain: COLLSCAN direction "backward"), over every shard
//    and across getMore batches;
//  * a sort against an index's directions reads the index backward instead
//    of sorting (IXSCAN direction "backward", no SORT stage): index {a: 1}
//    sorted {a: -1}; compound {a: 1, b: -1} sorted {a: -1, b: 1}; an
//    equality prefix {a: 5} sorted {b: 1} on {a: 1, b: -1};
//  * _id descending on a collection sharded by _id merges the shard tables
//    backward (no blocking sort).
load(__dirname + "/lib/assert.js");
load(__dirname + "/lib/explain.js");

const tdb = db.getSiblingDB("shell_natural_and_backward_scans");
assert.commandWorked(tdb.dropDatabase());

function hasStage(explain, name) {
  return stagesOf(explain).some((s) => s.stage === name);
}
function ids(cursor) {
  return cursor.toArray().map((d) => d._id);
}

// $natural both ways, batch by batch.
{
  const c = tdb.natural;
  const docs = [];
  for (let i = 0; i < 250; i++) docs.push({ _id: i, a: i % 7 });
  assert.commandWorked(c.insertMany(docs));
  const forward = ids(c.find().hint({ $natural: 1 }).batchSize(7));
  assert.eq(forward.length, 250);
  const backward = ids(c.find().hint({ $natural: -1 }).batchSize(7));
  assert.eq(backward, forward.slice().reverse());
  assert.eq(ids(c.find().sort({ $natural: -1 }).batchSize(3)), backward);
  assert.eq(ids(c.find().sort({ $natural: 1 })), forward);
  // With a filter, a skip and a limit.
  assert.eq(ids(c.find({ a: 3 }).sort({ $natural: -1 })),
            forward.filter((id) => id % 7 === 3).reverse());
  assert.eq(ids(c.find().sort({ $natural: -1 }).skip(10).limit(5)), backward.slice(10, 15));
  // Unsorted, a find is the natural scan.
  assert.eq(ids(c.find()), forward);
  const explain = c.find().sort({ $natural: -1 }).explain();
  const scans = stagesOf(explain).filter((s) => s.stage === "COLLSCAN");
  assert(scans.length > 0, JSON.stringify(explain));
  scans.forEach((s) => assert.eq(s.direction, "backward"));
  assert(!hasStage(explain, "SORT"), JSON.stringify(explain));
  assert.eq(c.find().hint({ $natural: 1 }).explain().queryPlanner.winningPlan.shards
                .every((s) => JSON.stringify(s).indexOf("\"forward\"") >= 0), true);
  // count and aggregate take the hint too.
  assert.eq(c.countDocuments({ a: 1 }, { hint: { $natural: -1 } }), 36);
  assert.eq(c.aggregate([{ $match: { a: 2 } }], { hint: { $natural: -1 } }).toArray().length, 36);
  // min/max are incompatible with $natural either way (291).
  assert.commandFailedWithCode(commandReply(tdb, { find: "natural", hint: { $natural: -1 }, min: { _id: 1 } }), 291);
}

// Backward index scans.
{
  const c = tdb.indexed;
  const docs = [];
  for (let i = 0; i < 300; i++) docs.push({ _id: i, a: i % 10, b: i % 13, c: i });
  assert.commandWorked(c.insertMany(docs));
  assert.eq(c.createIndex({ a: 1 }), "a_1");
  assert.eq(c.createIndex({ a: 1, b: -1 }), "a_1_b_-1");
  const model = docs.slice();
  const byKeys = (keys) => (x, y) => {
    for (const [k, d] of keys) {
      if (x[k] !== y[k]) return (x[k] < y[k] ? -1 : 1) * d;
    }
    return 0;
  };
  const check = (filter, sort, hint, predicate) => {
    const cursor = c.find(filter).sort(sort).hint(hint).batchSize(11);
    // Only the sort's fields are compared: MongoDB leaves ties unordered.
    const keys = Object.keys(sort);
    const got = cursor.toArray().map((d) => keys.map((k) => d[k]));
    const want = model.filter(predicate).sort(byKeys(Object.entries(sort))).map((d) => keys.map((k) => d[k]));
    assert.eq(got, want, JSON.stringify({ filter, sort }));
    const explain = c.find(filter).sort(sort).hint(hint).explain();
    const ix = stagesOf(explain).filter((s) => s.stage === "IXSCAN");
    assert(ix.length > 0, JSON.stringify(explain));
    ix.forEach((s) => assert.eq(s.direction, "backward", JSON.stringify(s)));
    assert(!hasStage(explain, "SORT"), JSON.stringify(explain));
  };
  check({}, { a: -1 }, { a: 1 }, () => true);
  check({ a: { $gte: 3, $lt: 8 } }, { a: -1 }, { a: 1 }, (d) => d.a >= 3 && d.a < 8);
  check({ a: { $in: [1, 4, 9] } }, { a: -1 }, { a: 1 }, (d) => [1, 4, 9].includes(d.a));
  check({}, { a: -1, b: 1 }, { a: 1, b: -1 }, () => true);
  check({ a: 5 }, { b: 1 }, { a: 1, b: -1 }, (d) => d.a === 5);
  check({ a: { $gt: 6 } }, { a: -1, b: 1 }, { a: 1, b: -1 }, (d) => d.a > 6);
  // Backward bounds read high to low, as MongoDB shows them.
  const bounds = (filter) => stagesOf(c.find(filter).sort({ a: -1 }).hint({ a: 1 }).explain())
      .find((s) => s.stage === "IXSCAN").indexBounds.a;
  assert.eq(bounds({}), ["[MaxKey, MinKey]"]);
  const range = bounds({ a: { $gte: 3, $lt: 8 } });
  assert.eq(range.length, 1);
  assert(range[0].startsWith("(8") && range[0].endsWith("3]"), range[0]);
  // Without a hint the planner picks the backward scan for the sort too.
  const explain = c.find({ a: { $gt: 2 } }).sort({ a: -1 }).explain();
  assert(!hasStage(explain, "SORT"), JSON.stringify(explain));
  assert(stagesOf(explain).some((s) => s.stage === "IXSCAN" && s.direction === "backward"), JSON.stringify(explain));
  // The index's own direction stays forward.
  const fwd = c.find({ a: { $gt: 2 } }).sort({ a: 1 }).hint({ a: 1 }).explain();
  stagesOf(fwd).filter((s) => s.stage === "IXSCAN").forEach((s) => assert.eq(s.direction, "forward"));
  // A sort that neither direction provides still sorts.
  const mixed = c.find().sort({ a: -1, b: -1 }).hint({ a: 1, b: -1 }).explain();
  assert(hasStage(mixed, "SORT"), JSON.stringify(mixed));
  // Documents deleted between batches are not returned.
  const cursor = c.find({}).sort({ a: -1 }).hint({ a: 1 }).batchSize(5);
  const first = cursor.next();
  assert.eq(first.a, 9);
  assert.commandWorked(c.deleteMany({ a: 9, _id: { $ne: first._id } }));
  const rest = [];
  while (cursor.hasNext()) rest.push(cursor.next());
  assert.eq(rest.filter((d) => d.a === 9).length <= 4, true);  // at most the batch read ahead
  assert.eq(rest.length >= 270, true);
  assert.eq(rest[rest.length - 1].a, 0);
}

// _id descending: the shard tables merged backward.
{
  const c = tdb.byid;
  const docs = [];
  for (let i = 0; i < 100; i++) docs.push({ _id: i });
  assert.commandWorked(c.insertMany(docs));
  const got = ids(c.find().sort({ _id: -1 }).batchSize(9));
  assert.eq(got, docs.map((d) => d._id).reverse());
  assert.eq(ids(c.find({ _id: { $gte: 20, $lt: 30 } }).sort({ _id: -1 })),
            [29, 28, 27, 26, 25, 24, 23, 22, 21, 20]);
  assert(!hasStage(c.find().sort({ _id: -1 }).explain(), "SORT"));
}

print("natural_and_backward_scans: ok");
