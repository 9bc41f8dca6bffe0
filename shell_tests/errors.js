// MongoDB's error codes for common mistakes. Code numbers and names are
// those of https://www.mongodb.com/docs/manual/reference/error-codes/ ;
// the duplicate key message is the one printed in the examples of
// https://www.mongodb.com/docs/manual/reference/method/db.collection.bulkWrite/
// ("E11000 duplicate key error collection: test.pizzas index: _id_ dup key:
// { _id: 4 }").
//
// Query errors fail the whole command (ok: 0, code, codeName). Update and
// insert errors are per statement: the command answers ok: 1 with
// writeErrors [{ index, code, errmsg }], and mongosh's helpers throw them.
// Both forms are checked.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_errors");
assert.commandWorked(tdb.dropDatabase());

const reply = (cmd) => commandReply(tdb, cmd);  // lib/assert.js
// The single write error of an update/insert command reply.
function writeError(res) {
  assert.eq(res.ok, 1, "write errors come with ok: 1: " + EJSON.stringify(res));
  assert(Array.isArray(res.writeErrors) && res.writeErrors.length === 1, "one write error: " + EJSON.stringify(res));
  assert.eq(res.writeErrors[0].index, 0, "write error index");
  return res.writeErrors[0];
}

// --- Unknown query operator: 2 BadValue -----------------------------------
{
  const c = tdb.unknown_query_operator;
  c.insertOne({ _id: 1, a: 1 });
  let res = assert.commandFailedWithCode(reply({ find: c.getName(), filter: { a: { $foo: 1 } } }), 2, "unknown operator");
  assert.eq(res.codeName, "BadValue", "unknown operator codeName");
  res = assert.commandFailedWithCode(reply({ find: c.getName(), filter: { $foo: 1 } }), 2, "unknown top level operator");
  assert.eq(res.codeName, "BadValue", "unknown top level operator codeName");
  assert.commandFailedWithCode(() => c.find({ a: { $foo: 1 } }).toArray(), 2, "unknown operator through find()");
  // The same filter fails the same way in count, distinct, update and delete.
  assert.commandFailedWithCode(reply({ count: c.getName(), query: { a: { $foo: 1 } } }), 2, "count");
  assert.commandFailedWithCode(reply({ distinct: c.getName(), key: "a", query: { a: { $foo: 1 } } }), 2, "distinct");
  assert.commandFailedWithCode(() => c.updateOne({ a: { $foo: 1 } }, { $set: { b: 1 } }), 2, "updateOne filter");
  assert.commandFailedWithCode(() => c.deleteOne({ a: { $foo: 1 } }), 2, "deleteOne filter");
  assert.docEq(c.find().toArray(), [{ _id: 1, a: 1 }], "nothing changed");
}

// --- $in / $nin need an array: 2 BadValue ---------------------------------
{
  const c = tdb.in_needs_array;
  c.insertOne({ _id: 1, a: 1 });
  const res = assert.commandFailedWithCode(reply({ find: c.getName(), filter: { a: { $in: 1 } } }), 2, "$in: 1");
  assert.eq(res.codeName, "BadValue", "$in codeName");
  assert.commandFailedWithCode(() => c.find({ a: { $in: "x" } }).toArray(), 2, "$in: string");
  assert.commandFailedWithCode(() => c.find({ a: { $nin: 1 } }).toArray(), 2, "$nin: 1");
  // $and/$or/$nor need a non-empty array too.
  assert.commandFailedWithCode(() => c.find({ $or: [] }).toArray(), 2, "$or: []");
  assert.commandFailedWithCode(() => c.find({ $and: {} }).toArray(), 2, "$and: {}");
}

// --- Unknown update modifier: 9 FailedToParse ------------------------------
{
  const c = tdb.unknown_modifier;
  c.insertOne({ _id: 1, a: 1 });
  const err = writeError(reply({ update: c.getName(), updates: [{ q: { _id: 1 }, u: { $foo: { a: 2 } } }] }));
  assert.eq(err.code, 9, "unknown modifier code");
  assert.commandFailedWithCode(() => c.updateOne({ _id: 1 }, { $foo: { a: 2 } }), 9, "unknown modifier through updateOne()");
  assert.commandFailedWithCode(() => c.updateMany({}, { $foo: { a: 2 } }), 9, "unknown modifier through updateMany()");
  assert.commandFailedWithCode(() => c.findOneAndUpdate({ _id: 1 }, { $foo: { a: 2 } }), 9, "unknown modifier through findOneAndUpdate()");
  assert.docEq(c.find().toArray(), [{ _id: 1, a: 1 }], "nothing changed");
}

// --- Conflicting update paths: 40 ConflictingUpdateOperators ---------------
{
  const c = tdb.conflicting_paths;
  c.insertOne({ _id: 1, a: 1, b: { c: 1 } });
  const err = writeError(reply({ update: c.getName(), updates: [{ q: { _id: 1 }, u: { $set: { a: 2 }, $inc: { a: 1 } } }] }));
  assert.eq(err.code, 40, "same path in two operators");
  assert.commandFailedWithCode(() => c.updateOne({ _id: 1 }, { $set: { b: 2, "b.c": 3 } }), 40, "a path and its prefix");
  assert.commandFailedWithCode(() => c.updateOne({ _id: 1 }, { $unset: { "b.c": "" }, $set: { b: 5 } }), 40, "prefix across operators");
  assert.commandFailedWithCode(() => c.updateOne({ _id: 1 }, { $rename: { a: "z" }, $set: { z: 1 } }), 40, "$rename target and $set");
  assert.docEq(c.find().toArray(), [{ _id: 1, a: 1, b: { c: 1 } }], "nothing changed");
}

// --- $inc on a non-number: 14 TypeMismatch ---------------------------------
{
  const c = tdb.inc_on_string;
  c.insertMany([{ _id: 1, a: "str" }, { _id: 2, n: null }]);
  const err = writeError(reply({ update: c.getName(), updates: [{ q: { _id: 1 }, u: { $inc: { a: 1 } } }] }));
  assert.eq(err.code, 14, "$inc on a string");
  // "Use of the $inc operator on a field with a null value will generate an
  // error." (reference/operator/update/inc)
  assert.commandFailedWithCode(() => c.updateOne({ _id: 2 }, { $inc: { n: 1 } }), 14, "$inc on null");
  assert.commandFailedWithCode(() => c.updateOne({ _id: 1 }, { $mul: { a: 2 } }), 14, "$mul on a string");
  assert.docEq(c.find().sort({ _id: 1 }).toArray(), [{ _id: 1, a: "str" }, { _id: 2, n: null }], "nothing changed");
}

// --- Modifying _id: 66 ImmutableField --------------------------------------
{
  const c = tdb.modify_id;
  c.insertOne({ _id: 1, a: 1 });
  const err = writeError(reply({ update: c.getName(), updates: [{ q: { _id: 1 }, u: { $set: { _id: 2 } } }] }));
  assert.eq(err.code, 66, "$set _id");
  assert.commandFailedWithCode(() => c.replaceOne({ _id: 1 }, { _id: 2, a: 1 }), 66, "replacement with another _id");
  assert.commandFailedWithCode(() => c.updateOne({ _id: 1 }, { $inc: { _id: 1 } }), 66, "$inc _id");
  assert.commandFailedWithCode(() => c.findOneAndUpdate({ _id: 1 }, { $set: { _id: 3 } }), 66, "findOneAndUpdate _id");
  // Setting _id to its current value is not a modification.
  assert.commandWorked(c.updateOne({ _id: 1 }, { $set: { _id: 1, a: 2 } }), "$set _id to the same value");
  assert.docEq(c.find().toArray(), [{ _id: 1, a: 2 }], "only the allowed update applied");
}

// --- Duplicate key: 11000 with MongoDB's E11000 message --------------------
{
  const c = tdb.duplicate_key;
  c.insertOne({ _id: 4, type: "sausage" });
  const err = writeError(reply({ insert: c.getName(), documents: [{ _id: 4, type: "beef" }] }));
  assert.eq(err.code, 11000, "insert duplicate code");
  assert.eq(err.errmsg, "E11000 duplicate key error collection: shell_errors.duplicate_key index: _id_ dup key: { _id: 4 }", "E11000 message");
  const e = assert.commandFailedWithCode(() => c.insertOne({ _id: 4 }), 11000, "insertOne duplicate");
  assert.eq(e.errmsg, "E11000 duplicate key error collection: shell_errors.duplicate_key index: _id_ dup key: { _id: 4 }", "insertOne message");
  // Other _id types render the same way as mongod prints them.
  c.insertOne({ _id: "abc" });
  const s = assert.commandFailedWithCode(() => c.insertOne({ _id: "abc" }), 11000, "string _id duplicate");
  assert.eq(s.errmsg, 'E11000 duplicate key error collection: shell_errors.duplicate_key index: _id_ dup key: { _id: "abc" }', "string _id message");
  // An upsert whose replacement carries an existing _id.
  assert.commandFailedWithCode(() => c.replaceOne({ type: "none" }, { _id: 4, type: "none" }, { upsert: true }), 11000, "upsert onto an existing _id");
  assert.eq(c.find().toArray().length, 2, "no document added");
}

// --- Unknown command: 59 CommandNotFound -----------------------------------
{
  const res = assert.commandFailedWithCode(reply({ noSuchCommandHere: 1 }), 59, "unknown command");
  assert.eq(res.codeName, "CommandNotFound", "unknown command codeName");
  assert.commandFailedWithCode(() => db.adminCommand({ noSuchCommandHere: 1 }), 59, "unknown admin command");
}

assert.commandWorked(tdb.dropDatabase());
