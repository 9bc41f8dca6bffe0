// Errors whose code differed from MongoDB's (issue #19), each checked on
// the command MongoDB's own tests use:
//  * $indexOfCP with a non-string: 40093 (first argument), 40094 (second);
//    $indexOfBytes keeps 40091/40092;
//  * createIndexes' ignoreUnknownIndexOptions of a wrong type: 14, and true
//    drops unknown index options (jstests/core/index/
//    unknown_field_names_create_indexes.js);
//  * a document over 16 MiB on insert: 2 BadValue "object to insert too
//    large" (jstests/core/max_doc_size.js);
//  * min and max naming different fields: 51176, before the index is
//    looked at;
//  * $project {a: 1, "a.b": 1}: 31249 "Path collision at a.b remaining
//    portion b" ({"a.b": 1, a: 1} stays 31250);
//  * aggregate with a pipeline that is not an array: 14.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_error_codes_as_mongod");
assert.commandWorked(tdb.dropDatabase());
const coll = tdb.c;
assert.commandWorked(coll.insertOne({ _id: 1, a: 1, b: 2, s: "abc" }));
coll.createIndex({ a: 1, b: 1 });

function agg(pipeline) {
  return commandReply(tdb, { aggregate: "c", pipeline: pipeline, cursor: {} });
}

assert.commandFailedWithCode(agg([{ $project: { x: { $indexOfCP: [5, "a"] } } }]), 40093);
assert.commandFailedWithCode(agg([{ $project: { x: { $indexOfCP: ["$s", 5] } } }]), 40094);
assert.commandFailedWithCode(agg([{ $project: { x: { $indexOfBytes: [5, "a"] } } }]), 40091);
assert.commandFailedWithCode(agg([{ $project: { x: { $indexOfBytes: ["$s", 5] } } }]), 40092);

// ignoreUnknownIndexOptions
assert.commandFailedWithCode(commandReply(tdb, {
  createIndexes: "c", indexes: [{ key: { x: 1 }, name: "myindex", someField: "someValue" }],
  ignoreUnknownIndexOptions: "badValue" }), 14);
assert.commandFailedWithCode(commandReply(tdb, {
  createIndexes: "c", indexes: [{ key: { x: 1 }, name: "myindex", someField: "someValue" }],
  ignoreUnknownIndexOptions: false }), 197);
assert.commandWorked(commandReply(tdb, {
  createIndexes: "c", indexes: [{ key: { x: 1 }, name: "myindex", someField: "someValue" }],
  ignoreUnknownIndexOptions: true }));
const myindex = coll.getIndexes().filter((i) => i.name === "myindex")[0];
assert.eq(myindex.someField, undefined);

// 16 MiB + 1 byte
{
  const res = commandReply(tdb, { insert: "c", documents: [{ _id: 2, x: "x".repeat(16 * 1024 * 1024) }] });
  const err = res.writeErrors ? res.writeErrors[0] : res;
  assert.eq(err.code, 2, JSON.stringify(res).slice(0, 300));
  assert.eq(err.errmsg.indexOf("object to insert too large") === 0, true, err.errmsg);
  assert.eq(coll.countDocuments({ _id: 2 }), 0);
}

// min/max field names
{
  const res = commandReply(tdb, { find: "c", min: { a: 1 }, max: { b: 5 }, hint: { a: 1, b: 1 } });
  assert.commandFailedWithCode(res, 51176);
  assert.commandFailedWithCode(
      commandReply(tdb, { find: "c", min: { a: 1, b: 1 }, max: { b: 5, a: 1 }, hint: { a: 1, b: 1 } }), 51176);
  assert.commandFailedWithCode(
      commandReply(tdb, { find: "c", min: { a: 1 }, max: { a: 5 }, hint: { a: 1, b: 1 } }), 51174);
  assert.commandWorked(
      commandReply(tdb, { find: "c", min: { a: 1, b: 1 }, max: { a: 5, b: 5 }, hint: { a: 1, b: 1 } }));
}

// $project path collisions
{
  const res = agg([{ $project: { a: 1, "a.b": 1 } }]);
  assert.commandFailedWithCode(res, 31249);
  assert.eq(res.errmsg.indexOf("Path collision at a.b remaining portion b") >= 0, true, res.errmsg);
  assert.commandFailedWithCode(agg([{ $project: { a: 1, "a.b.c": 1 } }]), 31249);
  assert.commandFailedWithCode(agg([{ $project: { "a.b": 1, a: 1 } }]), 31250);
}

// aggregate pipeline type
assert.commandFailedWithCode(commandReply(tdb, { aggregate: "c", pipeline: { $match: {} }, cursor: {} }), 14);
assert.commandFailedWithCode(commandReply(tdb, { aggregate: "c", pipeline: 5, cursor: {} }), 14);

print("error_codes_as_mongod: ok");
