// Names MongoDB refuses (issue #19):
//  * a collection name that is empty, starts with '.', or holds '$' or a
//    NUL byte, given to find, count, distinct, aggregate or drop:
//    73 InvalidNamespace "Invalid namespace specified '<db>.<coll>'";
//  * the same names and disallowed system names given to insert, update,
//    delete or findAndModify: 73 with the catalog's message;
//  * a NUL byte in a distinct key (31032), an aggregation field path
//    (16411), $regex options (2 BadValue) or an index name (67);
//  * a 65th index on a collection (67 CannotCreateIndex "add index fails,
//    too many indexes for <ns> key:<key>").
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_names_refused");
assert.commandWorked(tdb.dropDatabase());
assert.commandWorked(tdb.c.insertOne({ _id: 1, a: 1 }));

for (const name of ["", "a$b", ".a", "a\u0000b"]) {
  for (const cmd of [{ find: name }, { count: name }, { distinct: name, key: "a" },
                     { aggregate: name, pipeline: [], cursor: {} }, { drop: name }]) {
    const res = commandReply(tdb, cmd);
    assert.commandFailedWithCode(res, 73, JSON.stringify(cmd));
    // (A NUL byte ends the message on the wire, so compare up to it.)
    const expected = "Invalid namespace specified 'shell_names_refused." + name + "'";
    assert.eq(res.errmsg, expected.split("\u0000")[0], JSON.stringify(cmd));
  }
}
// Writes check the name as creating the collection would (mongod's
// userAllowedWriteNS before performInserts/Updates/Deletes and
// findAndModify), also when nothing would be written: update and delete
// of a missing collection used to answer {n: 0, ok: 1}.
for (const [name, message] of [["a$b", "Invalid collection name: a$b"],
                               [".a", "Collection names cannot start with '.': .a"],
                               ["system.foo", "Invalid system namespace: shell_names_refused.system.foo"]]) {
  for (const cmd of [{ insert: name, documents: [{ _id: 1 }] },
                     { update: name, updates: [{ q: {}, u: { $set: { a: 1 } } }] },
                     { update: name, updates: [{ q: {}, u: { $set: { a: 1 } }, upsert: true }] },
                     { delete: name, deletes: [{ q: {}, limit: 0 }] },
                     { findAndModify: name, query: {}, update: { $set: { a: 1 } } },
                     { findAndModify: name, query: {}, remove: true }]) {
    const res = commandReply(tdb, cmd);
    assert.commandFailedWithCode(res, 73, JSON.stringify(cmd));
    assert.eq(res.errmsg, message, JSON.stringify(cmd));
  }
}
assert.eq(tdb.getCollectionNames().filter((n) => n !== "c").length, 0);
// Allowed system collections and names near the marks still take writes.
assert.commandWorked(commandReply(tdb, { update: "system.js", updates: [{ q: { _id: "f" }, u: { $set: { value: 1 } } }] }));
assert.commandWorked(commandReply(tdb, { delete: "systemx", deletes: [{ q: {}, limit: 0 }] }));
assert.commandWorked(commandReply(tdb, { update: "c", updates: [{ q: { _id: 1 }, u: { $set: { a: 2 } } }] }));
assert.eq(tdb.c.findOne({ _id: 1 }).a, 2);

// Valid names still work, dotted ones included.
assert.commandWorked(commandReply(tdb, { find: "c.sub" }));
assert.commandWorked(commandReply(tdb, { drop: "never_created" }));

assert.commandFailedWithCode(commandReply(tdb, { distinct: "c", key: "a\u0000b" }), 31032);
assert.commandFailedWithCode(
    commandReply(tdb, { aggregate: "c", pipeline: [{ $project: { x: "$a\u0000b" } }], cursor: {} }), 16411);
assert.commandFailedWithCode(
    commandReply(tdb, { aggregate: "c", pipeline: [{ $group: { _id: "$a\u0000b" } }], cursor: {} }), 16411);
assert.commandFailedWithCode(
    commandReply(tdb, { find: "c", filter: { a: { $regex: "x", $options: "i\u0000" } } }), 2);

// An index name with a NUL byte (SERVER-16672): 67.
assert.commandFailedWithCode(
    commandReply(tdb, { createIndexes: "c", indexes: [{ key: { a: 1 }, name: "foo\u0000bar" }] }), 67);
assert.eq(tdb.c.getIndexes().length, 1);

// 64 indexes per collection, _id's included.
{
  const ix = tdb.ix;
  assert.commandWorked(ix.insertOne({}));
  for (let i = 0; i < 63; i++) ix.createIndex({ ["f" + i]: 1 });
  assert.eq(ix.getIndexes().length, 64);
  const res = commandReply(tdb, { createIndexes: "ix", indexes: [{ key: { f63: 1 }, name: "f63_1" }] });
  assert.commandFailedWithCode(res, 67);
  assert.eq(res.errmsg, "add index fails, too many indexes for shell_names_refused.ix key:{ f63: 1 }");
  assert.eq(ix.getIndexes().length, 64);
  // An index that already exists is still fine.
  assert.commandWorked(commandReply(tdb, { createIndexes: "ix", indexes: [{ key: { f0: 1 }, name: "f0_1" }] }));
}

print("names_refused: ok");
