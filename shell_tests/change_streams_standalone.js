// On a standalone server (no --replSet) $changeStream answers as a
// standalone mongod does: 40573, "The $changeStream stage is only
// supported on replica sets". replset/change_streams.js covers the rest.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_change_streams_standalone");
assert.commandWorked(tdb.dropDatabase());
assert.commandWorked(tdb.c.insertOne({ _id: 0 }));
const res = commandReply(tdb, { aggregate: "c", pipeline: [{ $changeStream: {} }], cursor: {} });
assert.commandFailedWithCode(res, 40573);
