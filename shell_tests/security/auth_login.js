// mongosh against a server started with --auth (shell_tests/run with
// TIGERDOC_SERVER_ARGS=--auth): the localhost exception creates the first
// user, then logins by URI (mongodb://user:pass@host/?authSource=admin,
// both SCRAM mechanisms) and by db.auth(); wrong passwords fail with 18;
// roles decide what runs.
load(__dirname + "/../lib/assert.js");

const admin = db.getSiblingDB("admin");
// Not yet authenticated: only the handshake runs.
assert.commandWorked(admin.runCommand({ping: 1}));
assert.commandFailedWithCode(() => db.runCommand({find: "c"}), 13);

// The localhost exception: the first user.
assert.commandWorked(admin.runCommand({createUser: "admin", pwd: "s3cret", roles: ["root"]}));
assert.commandFailedWithCode(
    () => admin.runCommand({createUser: "second", pwd: "x", roles: []}), 13);

// db.auth() on this connection.
assert.commandFailedWithCode(() => admin.auth("admin", "wrong"), 18);
assert.eq(admin.auth("admin", "s3cret").ok, 1);
assert.commandWorked(db.c.insertOne({a: 1}));
assert.commandWorked(admin.runCommand(
    {createUser: "reader", pwd: "r", roles: [{role: "read", db: "test"}]}));

// Logins by URI, as users write them.
const base = db.getMongo()._uri;  // mongodb://127.0.0.1:PORT/test?...
function connectAs(user, pwd, extra) {
  const uri = base.replace("mongodb://", "mongodb://" + user + ":" + pwd + "@")
                  .replace("/test?", "/test?authSource=admin&" + (extra || ""));
  return new Mongo(uri).getDB("test");
}
for (const mechanism of ["SCRAM-SHA-1", "SCRAM-SHA-256"]) {
  const rootDb = connectAs("admin", "s3cret", "authMechanism=" + mechanism + "&");
  const status = rootDb.runCommand({connectionStatus: 1});
  assert.eq(status.authInfo.authenticatedUsers[0].user, "admin", mechanism);
  assert.eq(rootDb.c.countDocuments({}), 1, mechanism);
}
const readerDb = connectAs("reader", "r");
assert.eq(readerDb.c.find().toArray().length, 1);
const refused = assert.commandFailedWithCode(
    () => readerDb.runCommand({insert: "c", documents: [{b: 1}]}), 13);
assert(refused.message.startsWith("not authorized on test to execute command { insert: \"c\""),
       refused.message);

let failed = null;
try {
  connectAs("reader", "wrong").runCommand({ping: 1});
} catch (e) {
  failed = e;
}
assert(failed !== null, "a wrong password must not connect");
assert.eq(failed.code, 18, String(failed));

// usersInfo as mongosh shows it.
const users = admin.getUsers().users || admin.getUsers();
assert.eq(users.map(u => u.user).sort(), ["admin", "reader"]);
print("auth_login: ok");
