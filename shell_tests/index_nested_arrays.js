// Index paths through nested arrays and positional components (issue #19,
// "Wrong answers"): every query must find with an index exactly what it
// finds without one. Each case runs on a collection without indexes and on
// one with the index, and the two answers (and the expected one, written
// from the matcher's rules in the MongoDB manual: a numeric component
// selects an array element, the array at the end of a path is traversed one
// level, $elemMatch applies to the elements of the array it names) must be
// the same set of _ids.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_index_nested_arrays");
assert.commandWorked(tdb.dropDatabase());

function ids(coll, filter) {
  return coll.find(filter).toArray().map((d) => d._id).sort().join();
}

let n = 0;
function check(name, docs, indexKey, filter, expectedIds) {
  const plain = tdb["plain_" + n];
  const indexed = tdb["indexed_" + n];
  n++;
  indexed.createIndex(indexKey);
  assert.commandWorked(plain.insertMany(docs));
  assert.commandWorked(indexed.insertMany(docs));
  const without = ids(plain, filter);
  const withIndex = ids(indexed, filter);
  assert.eq(without, expectedIds.join(), name + ": without the index");
  assert.eq(withIndex, expectedIds.join(), name + ": with the index " + JSON.stringify(indexKey));
}

// The two cases of the issue.
check("nested $elemMatch", [{ _id: 1, a: [[5]] }, { _id: 2, a: [5] }, { _id: 3, a: [[6]] }],
      { a: 1 }, { a: { $elemMatch: { $elemMatch: { $in: [5] } } } }, [1]);
check("positional through a nested array",
      [{ _id: 1, a: [[{ b: "old" }]] }, { _id: 2, a: [{ b: "old" }] }, { _id: 3, a: [[{ b: "new" }]] }],
      { "a.0.b": 1 }, { "a.0.b": "old" }, [1, 2]);

// A positional component ending at a nested array: the element is compared
// whole, as the matcher does (MongoDB's path traversal does not descend
// into an array reached by a position at the end of the path).
const nestedAtEnd = [{ _id: 1, a: [[1, 2]] }, { _id: 2, a: [1, 2] }, { _id: 3, a: [[3], [1]] }];
check("positional end, element", nestedAtEnd, { "a.0": 1 }, { "a.0": 1 }, [2]);
check("positional end, whole array", nestedAtEnd, { "a.0": 1 }, { "a.0": [1, 2] }, [1]);
check("positional end, range", nestedAtEnd, { "a.0": 1 }, { "a.0": { $gt: 1 } }, []);
check("positional end, $elemMatch", nestedAtEnd, { "a.0": 1 },
      { "a.0": { $elemMatch: { $eq: 2 } } }, [1]);
check("positional end, $in", nestedAtEnd, { "a.0": 1 }, { "a.0": { $in: [[3], 7] } }, [3]);

// Two positional components in a row.
check("positional twice", [{ _id: 1, a: [[5, 6]] }, { _id: 2, a: [[6, 5]] }, { _id: 3, a: [5] }],
      { "a.0.0": 1 }, { "a.0.0": 5 }, [1]);

// A numeric component past the end of the array names a field of its
// elements.
check("numeric field of elements", [{ _id: 1, a: [{ 5: "x" }] }, { _id: 2, a: [{ 5: "y" }] }],
      { "a.5": 1 }, { "a.5": "x" }, [1]);

// $elemMatch on an element read by position: any element, not only a[0].
check("$elemMatch with a positional inner path",
      [{ _id: 1, a: [1, [5]] }, { _id: 2, a: [[5]] }, { _id: 3, a: [[6]] }],
      { "a.0": 1 }, { a: { $elemMatch: { 0: 5 } } }, [1, 2]);

// An index on a plain path over nested arrays: inner arrays are keys whole.
check("equality to an inner array", [{ _id: 1, a: [[5]] }, { _id: 2, a: [5] }], { a: 1 },
      { a: [5] }, [1, 2]);
check("scalar does not reach into an inner array", [{ _id: 1, a: [[5]] }, { _id: 2, a: [5] }],
      { a: 1 }, { a: 5 }, [2]);
check("$elemMatch object through nested arrays",
      [{ _id: 1, a: [[{ b: 1 }]] }, { _id: 2, a: [{ b: 1 }] }], { "a.b": 1 },
      { a: { $elemMatch: { b: 1 } } }, [2]);

// An index on {"a.0": 1} refuses a document whose array has an element
// with a field named "0" (MongoDB 16746), whether the document is there
// first or comes later.
{
  const coll = tdb.ambiguous_existing;
  assert.commandWorked(coll.insertOne({ _id: 1, a: [{ 0: 1 }] }));
  assert.commandFailedWithCode(
      commandReply(tdb, { createIndexes: coll.getName(), indexes: [{ key: { "a.0": 1 }, name: "a0" }] }),
      16746);
  const later = tdb.ambiguous_later;
  later.createIndex({ "a.0": 1 });
  const res = commandReply(tdb, { insert: later.getName(), documents: [{ _id: 1, a: [{ x: 1 }, { 0: 2 }] }] });
  assert.eq(res.writeErrors && res.writeErrors[0].code, 16746, JSON.stringify(res));
  // A field "0" inside a document that is not an array element is fine.
  assert.commandWorked(later.insertOne({ _id: 2, a: { 0: 1 } }));
  assert.commandWorked(later.insertOne({ _id: 3, a: [] }));
}

print("index_nested_arrays: ok");
