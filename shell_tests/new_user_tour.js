// What a new user does in their first minutes with mongosh: look around,
// insert, query, update, delete, and ask for statistics. Each result is
// checked against what MongoDB returns.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_new_user_tour");
assert.commandWorked(tdb.dropDatabase());

// Connected and alive.
assert.commandWorked(db.adminCommand({ ping: 1 }));
const hello = db.hello();
assert.eq(hello.isWritablePrimary, true, "hello.isWritablePrimary");

// `show dbs`.
let dbs = assert.commandWorked(db.adminCommand({ listDatabases: 1 }));
assert(Array.isArray(dbs.databases), "listDatabases.databases is an array");
assert(!dbs.databases.some((d) => d.name === "shell_new_user_tour"), "fresh database not listed yet");

// insertOne / insertMany.
const people = tdb.people;
let res = people.insertOne({ _id: 1, name: "ada", age: 36, langs: ["en", "fr"] });
assert.eq(res.acknowledged, true, "insertOne acknowledged");
assert.eq(res.insertedId, 1, "insertOne insertedId");

res = people.insertMany([
  { _id: 2, name: "grace", age: 45, langs: ["en"] },
  { _id: 3, name: "alan", age: 41, langs: ["en", "de"] },
  { _id: 4, name: "edsger", age: 29, langs: ["nl", "en"] },
  { _id: 5, name: "barbara", age: 33 },
]);
assert.eq(res.acknowledged, true, "insertMany acknowledged");
assert.docEq(res.insertedIds, { 0: 2, 1: 3, 2: 4, 3: 5 }, "insertMany insertedIds");

// A document without _id gets an ObjectId.
res = people.insertOne({ name: "linus", age: 22 });
assert(res.insertedId instanceof ObjectId, "generated _id is an ObjectId: " + res.insertedId);

// Duplicate _id: E11000 with MongoDB's message.
const dup = assert.throwsWithCode(() => people.insertOne({ _id: 1, name: "again" }), 11000);
assert.eq(
  dup.errmsg || dup.message,
  "E11000 duplicate key error collection: shell_new_user_tour.people index: _id_ dup key: { _id: 1 }",
  "duplicate key message",
);

// The database now shows up.
dbs = assert.commandWorked(db.adminCommand({ listDatabases: 1 }));
assert(dbs.databases.some((d) => d.name === "shell_new_user_tour"), "database listed after insert");

// find with sort / limit / projection.
let docs = people.find({}, { _id: 0, name: 1 }).sort({ age: -1 }).limit(3).toArray();
assert.docEq(docs, [{ name: "grace" }, { name: "alan" }, { name: "ada" }], "top three by age");
docs = people.find({ langs: "en", age: { $lt: 40 } }).sort({ _id: 1 }).toArray();
assert.eq(docs.map((d) => d._id).join(","), "1,4", "english speakers under 40");
assert.eq(people.findOne({ name: "alan" }).age, 41, "findOne");
assert.eq(people.findOne({ name: "nobody" }), null, "findOne with no match");
assert.eq(people.find().toArray().length, 6, "all documents");
assert.eq(people.find().skip(4).toArray().length, 2, "skip");

// updateOne / updateMany.
res = people.updateOne({ name: "ada" }, { $set: { age: 37 } });
assert.eq(res.acknowledged, true);
assert.eq(res.matchedCount, 1, "updateOne matchedCount");
assert.eq(res.modifiedCount, 1, "updateOne modifiedCount");
// mongosh's UpdateResult names the upserted _id insertedId.
assert.eq(res.upsertedCount, 0, "updateOne upsertedCount");
assert.eq(res.insertedId, null, "updateOne without upsert has no insertedId");
res = people.updateOne({ name: "ada" }, { $set: { age: 37 } });
assert.eq(res.matchedCount, 1, "no-op update matches");
assert.eq(res.modifiedCount, 0, "no-op update modifies nothing");
res = people.updateMany({ age: { $gte: 40 } }, { $inc: { age: 1 }, $set: { senior: true } });
assert.eq(res.matchedCount, 2, "updateMany matchedCount");
assert.eq(res.modifiedCount, 2, "updateMany modifiedCount");
assert.docEq(people.findOne({ _id: 2 }), { _id: 2, name: "grace", age: 46, langs: ["en"], senior: true });
res = people.updateOne({ name: "kathleen" }, { $set: { age: 50 } }, { upsert: true });
assert.eq(res.matchedCount, 0, "upsert matchedCount");
assert.eq(res.upsertedCount, 1, "upsertedCount");
assert(res.insertedId instanceof ObjectId, "upserted _id is an ObjectId: " + res.insertedId);
assert.eq(people.findOne({ name: "kathleen" }).age, 50, "upserted document");

// deleteOne / deleteMany.
res = people.deleteOne({ name: "linus" });
assert.eq(res.deletedCount, 1, "deleteOne deletedCount");
res = people.deleteMany({ senior: true });
assert.eq(res.deletedCount, 2, "deleteMany deletedCount");
res = people.deleteMany({ senior: true });
assert.eq(res.deletedCount, 0, "deleteMany with no match");
assert.eq(people.find().toArray().length, 4, "documents left");

// A second collection, then `show collections`.
assert.commandWorked(tdb.createCollection("notes"));
tdb.notes.insertOne({ _id: "n1", text: "hello" });
assert.eq(tdb.getCollectionNames().sort().join(","), "notes,people", "show collections");

// db.people.stats() and db.stats().
const left = people.find().toArray();
const bsonSize = left.reduce((sum, d) => sum + bsonsize(d), 0);
const cs = people.stats();
assert.eq(cs.ok, 1, "collection stats ok");
assert.eq(cs.ns, "shell_new_user_tour.people", "stats ns");
assert.eq(cs.count, 4, "stats count");
assert.eq(cs.size, bsonSize, "stats size is the sum of BSON sizes");
assert.eq(cs.nindexes, 1, "stats nindexes");

const ds = tdb.stats();
assert.eq(ds.ok, 1, "db stats ok");
assert.eq(ds.db, "shell_new_user_tour", "db stats db");
assert.eq(ds.collections, 2, "db stats collections");
assert.eq(ds.objects, 5, "db stats objects");
assert.eq(ds.dataSize, bsonSize + bsonsize(tdb.notes.findOne()), "db stats dataSize");

// Clean up like a tidy user.
assert.commandWorked(tdb.dropDatabase());
assert.eq(tdb.getCollectionNames().length, 0, "no collections after dropDatabase");
