// writeConcern on a standalone server (issue #19), as mongod
// (write_concern.cpp validateWriteConcern; jstests/core/write/
// write_concern.js): w > 1 and named modes are refused (2 BadValue) before anything is
// written; w out of [0, 50] is FailedToParse (9).
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_write_concern_standalone");
assert.commandWorked(tdb.dropDatabase());
const coll = tdb.c;
let res;

function reply(cmd) {
  return commandReply(tdb, cmd);
}

// w: 0 writes are done (mongosh sends them with moreToCome and reads no
// reply; the exact {ok: 1} reply is checked through libmongoc in
// tests/e2e/write_concern_test.cc).
reply({ insert: "c", documents: [{ _id: 1 }, { _id: 2 }], writeConcern: { w: 0 } });
reply({ insert: "c", documents: [{ _id: 1 }], writeConcern: { w: 0 } });  // duplicate key
reply({ update: "c", updates: [{ q: { _id: 1 }, u: { $set: { x: 1 } } }], writeConcern: { w: 0 } });
reply({ delete: "c", deletes: [{ q: { _id: 2 }, limit: 1 }], writeConcern: { w: 0 } });
assert.eq(coll.find().sort({ _id: 1 }).toArray(), [{ _id: 1, x: 1 }]);

// w: 1, "majority" and {} are served and acknowledged.
assert.eq(reply({ insert: "c", documents: [{ _id: 3 }], writeConcern: { w: 1 } }).n, 1);
assert.eq(reply({ insert: "c", documents: [{ _id: 4 }], writeConcern: { w: "majority" } }).n, 1);
assert.eq(reply({ insert: "c", documents: [{ _id: 5 }], writeConcern: {} }).n, 1);

// Refused before anything is written.
res = reply({ insert: "c", documents: [{ _id: 10 }], writeConcern: { w: "myTag" } });
assert.commandFailedWithCode(res, 2);
assert.eq(res.errmsg, "cannot use non-majority 'w' mode \"myTag\" when a host is not a member of a replica set");
res = reply({ insert: "c", documents: [{ _id: 11 }], writeConcern: { w: 2 } });
assert.commandFailedWithCode(res, 2);
assert.eq(res.errmsg, "cannot use 'w' > 1 when a host is not replicated");
assert.commandFailedWithCode(reply({ insert: "c", documents: [{ _id: 12 }], writeConcern: { w: -1 } }), 9);
assert.commandFailedWithCode(reply({ insert: "c", documents: [{ _id: 13 }], writeConcern: { w: 51 } }), 9);
assert.commandFailedWithCode(
    reply({ update: "c", updates: [{ q: { _id: 1 }, u: { $set: { y: 1 } } }], writeConcern: { w: "x" } }), 2);
assert.commandFailedWithCode(
    reply({ delete: "c", deletes: [{ q: {}, limit: 0 }], writeConcern: { w: 3 } }), 2);
assert.eq(coll.find().sort({ _id: 1 }).toArray(), [{ _id: 1, x: 1 }, { _id: 3 }, { _id: 4 }, { _id: 5 }]);

print("write_concern_standalone: ok");
