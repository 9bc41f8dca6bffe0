// Wildcard indexes through mongosh (issue #19): createIndex forms and
// refusals with MongoDB 7's codes, explain's {$_path: 1, <path>: 1} scans,
// returnKey, hints, min/max (51174), and a differential check: seeded
// random documents with nested documents and arrays (arrays of arrays,
// documents in arrays, empty ones) and random queries must return the same
// _ids from a collection with wildcard indexes as from one without, for
// positional paths and under a collated index too.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_wildcard_indexes");
assert.commandWorked(tdb.dropDatabase());

// createIndex through the command, so the reply can be asserted on.
function createIndex(coll, key, options) {
  assert.commandWorked(tdb.runCommand(
      { createIndexes: coll.getName(), indexes: [Object.assign({ key, name: indexName(key) }, options)] }));
}
function indexName(key) {
  return Object.entries(key).map(([k, v]) => k + "_" + v).join("_");
}

// --- createIndex and its refusals -----------------------------------------
const spec = tdb.spec;
createIndex(spec, { "$**": 1 });
createIndex(spec, { "a.$**": 1 });
createIndex(spec, { "$**": -1 }, { wildcardProjection: { a: 0, _id: 1 } });
const listed = spec.getIndexes().map((ix) => ix.name).sort();
assert.eq(JSON.stringify(listed), JSON.stringify(["$**_-1", "$**_1", "_id_", "a.$**_1"]));
assert.docEq(spec.getIndexes().find((ix) => ix.name === "$**_-1").wildcardProjection,
             { a: 0, _id: 1 });
const refusals = [
  [{ "$**": 1 }, { sparse: true }, 67],
  [{ "$**": 1 }, { unique: true }, 67],
  [{ "$**": 1 }, { expireAfterSeconds: 5 }, 67],
  [{ "$**": 1, b: 1 }, {}, 67],           // "$**" compound needs a wildcardProjection
  [{ b: 1, "a.$**": 1 }, {}, 67],          // compound wildcard: not yet (TODO(#19))
  [{ tenant: 1, "$**": 1 }, { wildcardProjection: { tenant: 0 } }, 67],  // not yet (TODO(#19))
  [{ "a.$**": 1, "b.$**": 1 }, {}, 7246201],
  [{ a: 1, "a.$**": 1 }, {}, 7246204],
  [{ "a.b.c": 1, "a.b.$**": 1 }, {}, 7246204],
  [{ "a.$**": 1, b: "hashed" }, {}, 67],
  [{ "$**": 0 }, {}, 67],
  [{ "$**": "text2" }, {}, 67],
  [{ "$**": 1 }, { name: "m", wildcardProjection: { a: 1, b: 0 } }, 31254],
  [{ "$**": 1 }, { name: "c", wildcardProjection: { a: "$b" } }, 51271],
  [{ "$**": 1 }, { name: "e", wildcardProjection: {} }, 9],
  [{ "a.$**": 1 }, { name: "r", wildcardProjection: { a: 1 } }, 9],
  [{ a: 1 }, { wildcardProjection: { a: 1 } }, 2],
];
for (const [key, options, code] of refusals) {
  assert.commandFailedWithCode(
      commandReply(tdb, { createIndexes: "spec", indexes: [Object.assign({ key, name: "x" }, options)] }),
      code, JSON.stringify([key, options]));
}
assert.eq(spec.getIndexes().length, 4);

// --- plans, returnKey, hints ----------------------------------------------
const q = tdb.q;
assert.commandWorked(q.insertMany([
  { _id: 1, a: 1, b: { c: 1 } }, { _id: 2, a: 2, b: { c: [2, 3] } },
  { _id: 3, a: [1, 4], b: [{ c: 5 }] }, { _id: 4, b: { d: "x" } },
]));
createIndex(q, { "$**": 1 });

function ixscan(explain) {
  const shard = explain.queryPlanner.winningPlan.shards[0].winningPlan;
  return shard.stage === "FETCH" ? shard.inputStage : shard;
}
let scan = ixscan(q.find({ "b.c": { $gt: 1 } }).explain());
assert.eq(scan.stage, "IXSCAN");
assert.eq(scan.indexName, "$**_1");
assert.docEq(scan.keyPattern, { $_path: 1, "b.c": 1 });
assert.eq(JSON.stringify(scan.indexBounds.$_path), JSON.stringify(['["b.c", "b.c"]']));
assert.eq(scan.isMultiKey, true);
scan = ixscan(q.find({ a: 2 }).explain());
assert.docEq(scan.keyPattern, { $_path: 1, a: 1 });
assert.eq(JSON.stringify(scan.indexBounds.a), JSON.stringify(["[2, 2]"]));
assert.eq(ixscan(q.find({ a: null }).explain()).stage, "COLLSCAN");

assert.docEq(q.find({ "b.c": 3 }).returnKey(true).toArray(), [{ $_path: "b.c", "b.c": 3 }]);
assert.eq(q.find({ a: 1 }).hint({ "$**": 1 }).toArray().length, 2);
assert.eq(q.find({ a: 1 }).hint("$**_1").toArray().length, 2);
assert.commandFailedWithCode(
    commandReply(tdb, { find: "q", filter: { a: 1 }, min: { a: 1 }, hint: { "$**": 1 } }), 51174);
createIndex(q, { "b.$**": 1 });
assert.commandFailedWithCode(commandReply(tdb, { find: "q", filter: { a: 1 }, hint: { "b.$**": 1 } }),
                             291);
assert.eq(q.find({ "b.d": "x" }).hint({ "b.$**": 1 }).toArray()[0]._id, 4);

// A sort on the bounded path comes from the index while the path never held
// an array; afterwards the documents are sorted after the scan.
const s = tdb.s;
for (let i = 0; i < 30; i++) assert.commandWorked(s.insertOne({ _id: i, n: (i * 7) % 30 }));
createIndex(s, { "$**": 1 });
let plan = s.find({ n: { $gte: 3 } }).sort({ n: 1 }).explain().queryPlanner.winningPlan;
assert.eq(plan.stage, "SORT_MERGE");
assert.eq(s.find({ n: { $gte: 3 } }).sort({ n: 1 }).toArray()[0].n, 3);
assert.commandWorked(s.insertOne({ _id: 99, n: [0, 4] }));
plan = s.find({ n: { $gte: 3 } }).sort({ n: 1 }).explain().queryPlanner.winningPlan;
assert.neq(plan.stage, "SORT_MERGE");
assert.eq(s.find({ n: { $gte: 3 } }).sort({ n: 1 }).toArray()[0]._id, 99);  // sort key 0

// --- differential: wildcard index answers equal collection scans ----------
let seed = 4242;
function rand(n) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}
function pick(list) {
  return list[rand(list.length)];
}
function scalar() {
  return pick([1, 2, 3, "x", "y", null, true, "X"]);
}
function value(depth) {
  switch (rand(depth > 2 ? 2 : 8)) {
    case 0:
    case 1: return scalar();
    case 2: return pick([[], {}]);
    case 3: { const a = []; for (let i = rand(3) + 1; i > 0; i--) a.push(value(depth + 1)); return a; }
    case 4: return { b: value(depth + 1) };
    case 5: return { b: value(depth + 1), c: value(depth + 1) };
    case 6: return [[scalar(), scalar()], { b: scalar() }];
    default: return [{ b: [scalar()] }, { c: { b: scalar() } }];
  }
}
// Positional paths ("a.0", "a.1.b") read array elements, fields named like
// positions and arrays inside arrays; "a.0.0" is left to a collection scan.
const paths = ["a", "a.b", "a.c", "a.b.b", "a.c.b", "d", "a.0", "a.b.0", "a.1", "a.0.b", "a.1.c.b",
               "a.0.0"];
const plain = tdb.plain;
const caseInsensitive = { locale: "en", strength: 2 };
const indexes = [
  [{ "$**": 1 }, {}], [{ "$**": -1 }, { wildcardProjection: { d: 0 } }],
  [{ "a.$**": 1 }, {}], [{ "$**": 1 }, { wildcardProjection: { "a.b": 1, d: 1 } }],
  // Queried with its collation (below): string bounds are collation keys.
  [{ "$**": 1 }, { collation: caseInsensitive }],
];
const indexed = indexes.map((_, i) => tdb["indexed" + i]);
const docs = [];
for (let i = 0; i < 300; i++) {
  const doc = { _id: i, a: value(0) };
  if (rand(3) === 0) doc.d = value(1);
  docs.push(doc);
}
// One insertMany per collection: single inserts were most of this script's time.
for (const coll of [plain, ...indexed]) assert.commandWorked(coll.insertMany(docs));
indexes.forEach(([key, options], i) => {
  // Half the indexes exist before the documents arrive, half are built after.
  createIndex(indexed[i], key, Object.assign({ name: "w" }, options));
});

function queriesFor(path) {
  const v = scalar();
  return [
    { [path]: v }, { [path]: { $in: [v, pick([1, 2, 3, "x"])] } }, { [path]: { $gt: 1 } },
    { [path]: { $lte: 2 } }, { [path]: { $gte: "x" } }, { [path]: { $exists: true } },
    { [path]: { $regex: "^x" } }, { [path]: { $gt: 1, $lt: 3 } }, { [path]: { $ne: v } },
    { [path]: null }, { [path]: [v] }, { [path]: {} }, { [path]: { $elemMatch: { $gte: 2 } } },
    { [path]: v, d: { $exists: true } }, { $or: [{ [path]: v }, { d: 2 }] },
  ];
}

function ids(cursor) {
  return cursor.toArray().map((d) => d._id).sort((x, y) => x - y).join();
}
let checked = 0;
let indexScans = 0;
let positionalScans = 0;
let collatedScans = 0;
for (const path of paths) {
  for (const filter of queriesFor(path)) {
    // The collection scan's answers per collation, asked once for the
    // indexes that share one.
    const references = new Map();
    indexed.forEach((coll, i) => {
      // The collated index is asked with its collation; the reference is a
      // collection scan with the same one.
      const collation = indexes[i][1].collation || { locale: "simple" };
      const collationKey = JSON.stringify(collation);
      if (!references.has(collationKey)) {
        references.set(collationKey, {
          expected: ids(plain.find(filter).collation(collation)),
          sorted: plain.find(filter).collation(collation).sort({ [path]: 1, _id: 1 }).toArray()
                      .map((d) => d._id).join(),
        });
      }
      const reference = references.get(collationKey);
      assert.eq(ids(coll.find(filter).collation(collation)), reference.expected,
                "index " + JSON.stringify(indexes[i]) + ", filter " + JSON.stringify(filter));
      // Sorted on the queried path: the same documents in a valid order.
      const sorted = coll.find(filter).collation(collation).sort({ [path]: 1, _id: 1 }).toArray()
                         .map((d) => d._id);
      assert.eq(sorted.join(), reference.sorted, "sorted, filter " + JSON.stringify(filter));
      const explain = JSON.stringify(coll.find(filter).collation(collation).explain());
      if (explain.includes('"IXSCAN"')) {
        indexScans++;
        if (path.includes(".0") || path.includes(".1")) positionalScans++;
        if (indexes[i][1].collation) collatedScans++;
      }
      checked++;
    });
  }
}
assert.gte(indexScans, 100, "the wildcard indexes answered few queries");
assert.gte(positionalScans, 20, "the wildcard indexes answered few positional queries");
assert.gte(collatedScans, 20, "the collated wildcard index answered few queries");
print("wildcard_indexes: ok, " + checked + " queries, " + indexScans + " from a wildcard index");
