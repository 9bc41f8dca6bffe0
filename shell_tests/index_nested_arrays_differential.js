// Differential check of index bounds through nested arrays (issue #19):
// seeded random documents mixing scalars, arrays, arrays of arrays,
// documents in arrays and numeric field names, and random queries on
// plain, dotted and positional paths; every query must return the same
// _ids on a collection without indexes and on one with an index on the
// queried path (or a related one). Deterministic (fixed seed), so a
// failure names its query and can be replayed.
load(__dirname + "/lib/assert.js");
load(__dirname + "/lib/differential.js");

const tdb = db.getSiblingDB("shell_index_nested_arrays_differential");
assert.commandWorked(tdb.dropDatabase());

let seed = 12345;
function rand(n) {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}
function pick(list) {
  return list[rand(list.length)];
}
function scalar() {
  return pick([1, 2, 3, null, "x"]);
}
function value(depth) {
  const kind = rand(depth > 2 ? 2 : 7);
  switch (kind) {
    case 0: return scalar();
    case 1: return scalar();
    case 2: return [];
    case 3: { const a = []; for (let i = rand(3) + 1; i > 0; i--) a.push(value(depth + 1)); return a; }
    case 4: return { b: value(depth + 1) };
    case 5: return { b: value(depth + 1), c: scalar() };
    default: return [[scalar()], { b: scalar() }];
  }
}

const paths = ["a", "a.b", "a.0", "a.0.b", "a.0.0", "a.1", "a.b.0"];
const docs = [];
for (let i = 0; i < 300; i++) docs.push({ _id: i, a: value(0) });

function queriesFor(path) {
  const v = scalar();
  return [
    { [path]: v },
    { [path]: { $in: [v, pick([1, 2, 3])] } },
    { [path]: { $gt: 1 } },
    { [path]: { $lte: 2 } },
    { [path]: { $ne: v } },
    { [path]: null },
    { [path]: { $exists: true } },
    { [path]: { $exists: false } },
    { [path]: [v] },
    { [path]: { $elemMatch: { $eq: v } } },
    { [path]: { $elemMatch: { $gte: 2 } } },
    { [path]: { $elemMatch: { $elemMatch: { $in: [v] } } } },
    { [path]: { $elemMatch: { b: v } } },
    { [path]: { $elemMatch: { 0: v } } },
    { [path]: { $all: [v] } },
    { [path]: { $not: { $gt: 1 } } },
  ];
}

let checked = 0;
for (const indexPath of paths) {
  const plain = tdb["plain_" + indexPath.replace(/\./g, "_")];
  const indexed = tdb["indexed_" + indexPath.replace(/\./g, "_")];
  indexed.createIndex({ [indexPath]: 1 });
  // A document the index refuses (16746) stays out of both.
  for (const e of insertIntoBoth(indexed, plain, docs)) assert.eq(e.code, 16746, JSON.stringify(e));
  for (const queryPath of paths) {
    for (const filter of queriesFor(queryPath)) {
      const expected = plain.find(filter).toArray().map((d) => d._id).sort((x, y) => x - y).join();
      const actual = indexed.find(filter).toArray().map((d) => d._id).sort((x, y) => x - y).join();
      assert.eq(actual, expected, "index " + indexPath + ", filter " + JSON.stringify(filter));
      checked++;
    }
  }
}
print("index_nested_arrays_differential: ok, " + checked + " queries");
