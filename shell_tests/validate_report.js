// The validate command's report in MongoDB 7's shape (issue #19): its
// fields in order, counts as plain int32 numbers, documents the validator
// refuses counted in nNonCompliantDocuments with MongoDB's warning (and
// still valid), `full: true` the same walk, and the _id index of a
// collection with a default collation checked too.
load(__dirname + "/lib/assert.js");

const vdb = db.getSiblingDB("shell_validate_report");
// mongosh's runCommand throws on ok: 0; commandReply returns the reply either way.
const run = (cmd) => commandReply(vdb, cmd);
assert.commandWorked(vdb.dropDatabase());
const kFields = ["ns", "nInvalidDocuments", "nNonCompliantDocuments", "nrecords", "nIndexes", "keysPerIndex",
                 "indexDetails", "valid", "repaired", "warnings", "errors", "extraIndexEntries",
                 "missingIndexEntries", "corruptRecords", "ok"];

assert.commandWorked(vdb.c.insertMany([{ _id: 1, a: 1 }, { _id: 2, a: [2, 3] }, { _id: 3 }]));
assert.eq(vdb.c.createIndex({ a: 1 }), "a_1");
for (const full of [false, true]) {
  const res = run({ validate: "c", full });
  assert.commandWorked(res);
  assert.eq(Object.keys(res), kFields);
  assert.eq(res.ns, "shell_validate_report.c");
  assert.eq(res.nrecords, 3);  // an int32, not a Long
  assert.eq(typeof res.nrecords, "number");
  assert.eq(res.nIndexes, 2);
  assert.docEq(res.keysPerIndex, { _id_: 3, a_1: 4 });
  assert.docEq(res.indexDetails, { _id_: { valid: true }, a_1: { valid: true } });
  assert.eq(res.valid, true);
  assert.eq(res.repaired, false);
  assert.eq(res.nInvalidDocuments, 0);
  assert.eq(res.nNonCompliantDocuments, 0);
  for (const list of ["warnings", "errors", "extraIndexEntries", "missingIndexEntries", "corruptRecords"]) {
    assert.eq(res[list], [], list);
  }
  assert.eq(res.advice, undefined);
}

// Documents the validator refuses (let in by "warn", or written before the
// validator): counted, warned about, the collection still valid.
assert.commandWorked(vdb.createCollection("s", { validator: { n: { $lt: 10 } }, validationAction: "warn" }));
for (let n = 0; n < 12; n++) assert.commandWorked(vdb.s.insert({ n }));
let res = run({ validate: "s", full: true });
assert.commandWorked(res);
assert.eq(res.nNonCompliantDocuments, 2);
assert.eq(res.warnings, ["Detected one or more documents not compliant with the collection's schema. Check logs " +
                         "for log id 5363500."]);
assert.eq(res.valid, true);
// validationLevel "off" checks nothing.
assert.commandWorked(run({ collMod: "s", validationLevel: "off" }));
res = run({ validate: "s" });
assert.eq(res.nNonCompliantDocuments, 0);
assert.eq(res.warnings, []);

// A collection with a default collation: its _id index compares under it,
// and validate checks those keys too; listIndexes shows the collation.
assert.commandWorked(vdb.createCollection("ci", { collation: { locale: "en", strength: 2 } }));
assert.commandWorked(vdb.ci.insertMany([{ _id: "a" }, { _id: "b" }]));
assert.commandFailedWithCode(() => vdb.ci.insert({ _id: "B" }), 11000);
res = run({ validate: "ci" });
assert.eq(res.valid, true);
assert.eq(res.keysPerIndex._id_, 2);
const idIndex = vdb.ci.getIndexes()[0];
assert.eq(idIndex.name, "_id_");
assert.eq(idIndex.collation.strength, 2);
assert.eq(vdb.getCollectionInfos({ name: "ci" })[0].idIndex.collation.locale, "en");
assert.eq(vdb.c.getIndexes()[0].collation, undefined);

// Options MongoDB has and tigerdoc does not are refused, not ignored.
assert.commandFailedWithCode(run({ validate: "c", repair: true }), 238);
assert.commandFailedWithCode(run({ validate: "missing" }), 26);

print("validate_report.js passed");
