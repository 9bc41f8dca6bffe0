// Issue #19 ("done when every line behaves as MongoDB 7 does"): one quick
// check per line of the issue, with MongoDB 7's exact codes, so the closing
// note can cite one script. The deeper tests of each line are named in the
// comments (shell_tests/*.js, tests/e2e/*, tests/engine/*).
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_issue19_audit");
assert.commandWorked(tdb.dropDatabase());

function run(cmd) {
  return commandReply(tdb, cmd);
}
function agg(coll, pipeline) {
  return run({ aggregate: coll, pipeline: pipeline, cursor: {} });
}
function evaluate(expr) {
  const res = agg("one", [{ $project: { _id: 0, r: expr } }]);
  assert.commandWorked(res, JSON.stringify(expr));
  return res.cursor.firstBatch[0].r;
}
function evaluateFails(expr, code) {
  return assert.commandFailedWithCode(agg("one", [{ $project: { _id: 0, r: expr } }]), code,
                                      JSON.stringify(expr));
}
function ids(cursor) {
  return cursor.toArray().map((d) => d._id).sort((a, b) => a - b).join();
}
function writeErrorCode(res) {
  return res.writeErrors && res.writeErrors.length ? res.writeErrors[0].code : null;
}
assert.commandWorked(tdb.one.insertOne({ _id: 0, x: 10, arr: [{ x: 1 }, { x: 2 }] }));

// --- Index paths through nested arrays (index_nested_arrays.js, ..._differential.js)
{
  const c = tdb.nested;
  c.createIndex({ a: 1 });
  c.createIndex({ "a.0.b": 1 });
  assert.commandWorked(c.insertMany([{ _id: 1, a: [[5]] }, { _id: 2, a: [5] },
                                     { _id: 3, a: [[{ b: "old" }]] }, { _id: 4, a: [{ b: "new" }] }]));
  assert.eq(ids(c.find({ a: { $elemMatch: { $elemMatch: { $in: [5] } } } }).hint({ a: 1 })), "1");
  assert.eq(ids(c.find({ "a.0.b": "old" }).hint({ "a.0.b": 1 })), "3");
  assert.eq(ids(c.find({ "a.0.b": "old" }).hint({ $natural: 1 })), "3");
}

// --- $expr with $or over {a: 1, b: 1}, 5 documents (expr_with_or_on_index.js)
{
  const c = tdb.expr_or;
  c.createIndex({ a: 1, b: 1 });
  for (let i = 0; i < 5; i++) assert.commandWorked(c.insertOne({ _id: i, a: "a", b: "abcde"[i] }));
  assert.eq(ids(c.find({ $expr: { $eq: ["$a", "a"] }, $or: [{ b: "b" }, { b: "c" }] })), "1,2");
}

// --- $merge writes what it can, then reports the error (merge_writes_past_failures.js)
{
  assert.commandWorked(tdb.merge_src.insertMany([0, 1, 2, 3].map((i) => ({ _id: i }))));
  assert.commandWorked(tdb.merge_out.insertOne({ _id: 1, old: true }));
  assert.commandFailedWithCode(agg("merge_src", [{ $sort: { _id: 1 } },
    { $merge: { into: "merge_out", whenMatched: "fail", whenNotMatched: "insert" } }]), 11000);
  assert.eq(ids(tdb.merge_out.find()), "0,1,2,3");
}

// --- Natural order: insertion order in capped collections; elsewhere shard
// and key order by decision (engine/README.md "Natural order and insertion
// order"); {$natural: -1} is the exact reverse (natural_and_backward_scans.js).
{
  assert.commandWorked(tdb.createCollection("capped_order", { capped: true, size: 1 << 20 }));
  const order = [5, 3, 9, 1, 7];
  for (const id of order) assert.commandWorked(tdb.capped_order.insertOne({ _id: id }));
  assert.eq(tdb.capped_order.find().toArray().map((d) => d._id), order);
  assert.eq(tdb.capped_order.find().sort({ $natural: -1 }).toArray().map((d) => d._id),
            order.slice().reverse());
  const c = tdb.natural;
  for (let i = 0; i < 40; i++) assert.commandWorked(c.insertOne({ _id: i }));
  const forward = c.find().hint({ $natural: 1 }).batchSize(3).toArray().map((d) => d._id);
  assert.eq(forward.length, 40);
  assert.eq(c.find().hint({ $natural: -1 }).batchSize(3).toArray().map((d) => d._id), forward.reverse());
}

// --- Names (names_refused.js)
{
  for (const name of ["", "$"]) {
    assert.commandFailedWithCode(run({ find: name }), 73);
    assert.commandFailedWithCode(run({ drop: name }), 73);
  }
  for (const cmd of [{ insert: "", documents: [{}] }, { update: "", updates: [{ q: {}, u: {} }] },
                     { delete: "", deletes: [{ q: {}, limit: 1 }] }]) {
    const res = assert.commandFailedWithCode(run(cmd), 73);
    assert.eq(res.errmsg, "Invalid namespace specified 'shell_issue19_audit.'");
  }
  assert.commandFailedWithCode(agg("one", [{ $project: { r: "$a\u0000b" } }]), 16411);
  // Stage arguments that are field paths: read whole, NUL included.
  for (const stage of [{ $unwind: "$a\u0000b" }, { $unwind: { path: "$arr", includeArrayIndex: "i\u0000" } },
                       { $lookup: { from: "one", localField: "a\u0000", foreignField: "x", as: "l" } },
                       { $lookup: { from: "one", localField: "x", foreignField: "x", as: "l\u0000" } },
                       { $graphLookup: { from: "one", startWith: "$x", connectFromField: "x\u0000", connectToField: "x", as: "g" } },
                       { $unset: "a\u0000b" }]) {
    assert.commandFailedWithCode(agg("one", [stage]), 16411, JSON.stringify(stage));
  }
  assert.commandFailedWithCode(agg("one", [{ $count: "c\u0000" }]), 40159);
  assert.commandFailedWithCode(run({ distinct: "one", key: "a\u0000b" }), 31032);
  assert.commandFailedWithCode(
      run({ createIndexes: "one", indexes: [{ key: { a: 1 }, name: "a\u0000b" }] }), 67);
  assert.commandFailedWithCode(run({ find: "one", filter: { x: { $regex: "a", $options: "i\u0000" } } }), 2);
}

// --- 64 indexes; the 65th is 67 (names_refused.js)
{
  assert.commandWorked(tdb.many.insertOne({}));
  const indexes = [];
  for (let i = 0; i < 63; i++) indexes.push({ key: { ["f" + i]: 1 }, name: "f" + i });
  assert.commandWorked(run({ createIndexes: "many", indexes: indexes }));
  assert.eq(tdb.many.getIndexes().length, 64);
  assert.commandFailedWithCode(run({ createIndexes: "many", indexes: [{ key: { g: 1 }, name: "g" }] }), 67);
}

// --- Date expressions (expressions_trig_date_decimal.js)
{
  assert.eq(evaluate({ $dateToString: { date: "not a date", timezone: null } }), null);
  assert.eq(evaluate({ $dateToString: { date: 5, format: "$missing" } }), null);
  assert.eq(evaluate({ $dateToString: { date: "$missing", format: null, onNull: "n" } }), "n");
  assert.eq(evaluate({ $dateToParts: { date: "x", iso8601: null } }), null);
  assert.eq(evaluate({ $dateToParts: { date: "x", timezone: "$missing" } }), null);
  // $dateFromString type-checks a non-null dateString first (MongoDB's
  // ExpressionDateFromString::evaluate: 241 inside its onError try block).
  evaluateFails({ $dateFromString: { dateString: 5, format: null } }, 241);
  assert.eq(evaluate({ $dateFromString: { dateString: 5, timezone: "$missing", onError: "e" } }), "e");
  assert.eq(evaluate({ $dateFromString: { dateString: "2017-07-04", format: null } }), null);
  assert.eq(evaluate({ $dateFromString: { dateString: "2017-07-04", timezone: "$missing" } }), null);
  assert.eq(evaluate({ $dateFromString: { dateString: null, onNull: "n" } }), "n");
  evaluateFails({ $dateToString: { date: "x" } }, 16006);
  // A non-null format and the timezone are checked before a null date.
  evaluateFails({ $dateToString: { date: null, timezone: "Bad/Zone" } }, 40485);
  evaluateFails({ $dateToString: { date: null, format: "%Q" } }, 18536);
  evaluateFails({ $dateFromString: { dateString: null, format: "%Y%" } }, 18535);
  evaluateFails({ $dateFromString: { dateString: 5 } }, 241);
  assert.eq(evaluate({ $dateFromString: { dateString: "July 4th, 2017" } }), ISODate("2017-07-04T00:00:00Z"));
  assert.eq(evaluate({ $dateFromString: { dateString: "2017-07-04T11:56.02" } }), ISODate("2017-07-04T11:56:02Z"));
}

// --- Decimal128 exponents (expressions_trig_date_decimal.js)
{
  assert.eq(evaluate({ $log10: NumberDecimal("10") }).toString(), "1");
  assert.eq(evaluate({ $trunc: [NumberDecimal("1.298"), 10] }).toString(), "1.2980000000");
  assert.eq(evaluate({ $round: [NumberDecimal("1.5"), 3] }).toString(), "1.500");
}

// --- Update storage rules (update_storage_rules.js, index_nested_arrays.js)
{
  assert.commandWorked(tdb.upd.insertOne({ _id: 1, a: [] }));
  assert.eq(writeErrorCode(run({ update: "upd", updates: [{ q: { _id: 1 }, u: { $set: { $top: 1 } } }] })), 52);
  assert.eq(writeErrorCode(run({ update: "upd", updates: [{ q: { _id: 1 }, u: { $set: { "a.1500001": 1 } } }] })), 34);
  assert.eq(tdb.upd.findOne(), { _id: 1, a: [] });
  // 1,500,000 nulls before the element written is the limit itself.
  assert.commandWorked(run({ update: "upd", updates: [{ q: { _id: 1 }, u: { $set: { "a.1500000": 1 } } }] }));
  assert.eq(tdb.upd.aggregate([{ $project: { n: { $size: "$a" } } }]).toArray(), [{ _id: 1, n: 1500001 }]);
  assert.commandWorked(tdb.pos.insertOne({ _id: 1, a: [{ 0: 1 }] }));
  assert.commandFailedWithCode(run({ createIndexes: "pos", indexes: [{ key: { "a.0": 1 }, name: "a0" }] }), 16746);
}

// --- Upserts, findAndModify, distinct, stages and expressions
{
  // upsert_seed_and_id.js
  let res = run({ update: "ups", updates: [{ q: { _id: 1 }, u: { _id: 2, x: 1 }, upsert: true }] });
  assert.eq(writeErrorCode(res), 66);
  res = assert.commandWorked(run({ update: "ups", updates: [{ q: { $and: [{ $or: [{ k: 7 }] }, { j: 1 }] },
                                                               u: { $set: { y: 1 } }, upsert: true }] }));
  const up = tdb.ups.findOne({ _id: res.upserted[0]._id });
  assert.eq([up.k, up.j, up.y], [7, 1, 1]);

  // findAndModify new: true with a positional projection: 2 BadValue
  // (MongoDB's getExecutorUpdate); new: false and $elemMatch stay allowed.
  assert.commandWorked(tdb.fam.insertOne({ _id: 1, a: [1, 2, 3] }));
  res = run({ findAndModify: "fam", query: { a: 2 }, update: { $set: { b: 1 } }, new: true, fields: { "a.$": 1 } });
  assert.commandFailedWithCode(res, 2);
  assert.eq(res.errmsg, "cannot use a positional projection and return the new document");
  assert.eq(tdb.fam.findOne().b, undefined);
  assert.eq(run({ findAndModify: "fam", query: { a: 2 }, update: { $set: { b: 1 } }, fields: { "a.$": 1 } }).value,
            { _id: 1, a: [2] });
  assert.eq(run({ findAndModify: "fam", query: { a: 2 }, update: { $set: { b: 2 } }, new: true,
                  fields: { a: { $elemMatch: { $eq: 3 } } } }).value, { _id: 1, a: [3] });

  // distinct query: null (aggregation_edge_arguments.js)
  assert.eq(assert.commandWorked(run({ distinct: "one", key: "x", query: null })).values, [10]);

  // $graphLookup without connectFromField: 40105
  assert.commandFailedWithCode(agg("one", [{ $graphLookup: { from: "one", startWith: "$x",
                                                             connectToField: "x", as: "g" } }]), 40105);

  // $map / $filter rebinding CURRENT ("$x" reads the element); $let's
  // rebinding stays inside it.
  assert.eq(evaluate({ $map: { input: "$arr", as: "CURRENT", in: "$x" } }), [1, 2]);
  assert.eq(evaluate({ $map: { input: "$arr", as: "CURRENT", in: "$$ROOT.x" } }), [10, 10]);
  assert.eq(evaluate({ $filter: { input: "$arr", as: "CURRENT", cond: { $eq: ["$x", 2] } } }), [{ x: 2 }]);
  assert.eq(evaluate([{ $let: { vars: { CURRENT: { x: 5 } }, in: "$x" } }, "$x"]), [5, 10]);

  // $mod: integer by integral double stays integer (aggregation_edge_arguments.js)
  assert.eq(evaluate({ $type: { $mod: [NumberInt(7), 2.0] } }), "int");
  assert.eq(evaluate({ $type: { $mod: [NumberLong("7"), 2.0] } }), "long");
  assert.eq(evaluate({ $type: { $mod: [NumberInt(7), 2.5] } }), "double");

  // $zip with empty inputs: 34465
  evaluateFails({ $zip: { inputs: [] } }, 34465);

  // $unwind preserveNullAndEmptyArrays: an empty array's field is dropped
  assert.commandWorked(tdb.unw.insertOne({ _id: 1, s: [] }));
  assert.eq(tdb.unw.aggregate([{ $unwind: { path: "$s", preserveNullAndEmptyArrays: true } }]).toArray(), [{ _id: 1 }]);

  // $convert: every BSON type name is a target; what cannot be converted is
  // 241, which onError catches; a bad 'to' is not caught (9 / 2).
  const names = ["double", "string", "object", "array", "binData", "undefined", "objectId", "bool",
                 "date", "null", "regex", "dbPointer", "javascript", "symbol", "javascriptWithScope",
                 "int", "timestamp", "long", "decimal", "minKey", "maxKey", "missing"];
  const convertible = { double: 10, string: "10", bool: true, int: 10, long: NumberLong("10"), decimal: NumberDecimal("10") };
  for (const to of names) {
    if (to in convertible) {
      assert.eq(evaluate({ $convert: { input: "$x", to: to, onError: "e" } }), convertible[to], to);
    } else {
      const res = evaluateFails({ $convert: { input: "$x", to: to } }, 241);
      assert.eq(res.errmsg.indexOf("Unsupported conversion from int to " + to + " in $convert with no onError value") >= 0,
                true, res.errmsg);
      assert.eq(evaluate({ $convert: { input: "$x", to: to, onError: "e" } }), "e", to);
    }
  }
  assert.eq(evaluate({ $convert: { input: "$x", to: -1, onError: "e" } }), "e");
  assert.eq(evaluate({ $convert: { input: "$x", to: 127, onError: "e" } }), "e");
  assert.eq(evaluate({ $convert: { input: "abc", to: "int", onError: "e" } }), "e");
  assert.eq(evaluate({ $convert: { input: "abc", to: "objectId", onError: "e" } }), "e");
  assert.eq(evaluate({ $convert: { input: 1e100, to: "int", onError: "e" } }), "e");
  evaluateFails({ $convert: { input: "$x", to: "foo", onError: "e" } }, 2);
  evaluateFails({ $convert: { input: "$missing", to: "foo", onNull: "n" } }, 2);
  evaluateFails({ $convert: { input: "$x", to: 20, onError: "e" } }, 9);
  evaluateFails({ $convert: { input: "$x", to: 1.5, onError: "e" } }, 9);
  evaluateFails({ $convert: { input: "$x", to: {}, onError: "e" } }, 9);

  // Regex patterns up to 32,764 bytes (MongoDB's PCRE2 limit), then 51091
  // ($regex) / 51111 (aggregation), whatever the pattern compiles to.
  assert.commandWorked(tdb.re.insertOne({ _id: 1, s: "c".repeat(40000) }));
  assert.eq(tdb.re.find({ s: { $regex: "c".repeat(32764) } }, { _id: 1 }).toArray(), [{ _id: 1 }]);
  const comment = "(?#" + "x".repeat(32762) + ")";  // 32,766 bytes that compile to nothing
  assert.commandFailedWithCode(run({ find: "re", filter: { s: { $regex: comment } } }), 51091);
  assert.commandFailedWithCode(run({ find: "re", filter: { s: { $in: [new RegExp("c".repeat(32765))] } } }), 51091);
  assert.commandFailedWithCode(agg("re", [{ $project: { m: { $regexMatch: { input: "$s", regex: comment } } } }]), 51111);
  // $regexFindAll's output is bounded (MongoDB's regex_limits.js shape).
  assert.commandFailedWithCode(agg("re", [{ $project: { m: { $regexFindAll: { input: "$s", regex: "()".repeat(300) } } } }]), 51151);
  assert.eq(tdb.re.aggregate([{ $project: { n: { $size: { $regexFindAll: { input: "$s", regex: "c" } } } } }]).toArray()[0].n, 40000);
}

// --- Cursors (cursor_batch_end.js)
{
  const c = tdb.big;
  assert.commandWorked(c.insertOne({ _id: 0 }));
  assert.commandWorked(c.insertOne({ _id: 1, pad: "x".repeat(16 * 1024 * 1024 - 64) }));
  let res = tdb.runCommand({ find: "big", sort: { _id: 1 }, batchSize: 1 });
  res = tdb.runCommand({ getMore: res.cursor.id, collection: "big" });
  assert.eq(res.cursor.nextBatch.length, 1);
  assert.eq(res.cursor.id, NumberLong("0"));
  const d = tdb.deleted;
  for (let i = 0; i < 10; i++) assert.commandWorked(d.insertOne({ _id: i }));
  res = tdb.runCommand({ find: "deleted", sort: { _id: 1 }, batchSize: 2 });
  assert.commandWorked(d.deleteMany({ _id: { $gte: 2 } }));
  res = tdb.runCommand({ getMore: res.cursor.id, collection: "deleted" });
  assert.eq(res.cursor.nextBatch, []);
}

// --- Write concern (write_concern_standalone.js; the exact w: 0 reply
// {ok: 1}, which mongosh never reads, in tests/e2e/write_concern_test.cc)
{
  run({ insert: "wc", documents: [{ _id: 1 }], writeConcern: { w: 0 } });
  assert.eq(tdb.wc.countDocuments({ _id: 1 }), 1);
  const res = run({ insert: "wc", documents: [{ _id: 2 }], writeConcern: { w: "myTag" } });
  assert.commandFailedWithCode(res, 2);
  assert.eq(tdb.wc.countDocuments({ _id: 2 }), 0);
  assert.commandFailedWithCode(run({ findAndModify: "wc", query: { _id: 1 }, update: { $set: { x: 1 } },
                                     writeConcern: { w: "myTag" } }), 2);
  assert.commandFailedWithCode(run({ findAndModify: "wc", query: { _id: 1 }, update: { $set: { x: 1 } },
                                     writeConcern: { w: 2 } }), 2);
  assert.eq(tdb.wc.findOne({ _id: 1 }).x, undefined);
  // Every command that writes refuses it before it runs, not only the CRUD ones.
  assert.commandFailedWithCode(run({ create: "wcNew", writeConcern: { w: 2 } }), 2);
  assert.commandFailedWithCode(run({ createIndexes: "wc", indexes: [{ key: { q: 1 }, name: "q" }],
                                     writeConcern: { w: "myTag" } }), 2);
  assert.commandFailedWithCode(run({ aggregate: "wc", pipeline: [{ $out: "wcOut" }], cursor: {},
                                     writeConcern: { w: 2 } }), 2);
  assert.commandFailedWithCode(run({ drop: "wc", writeConcern: { w: 3 } }), 2);
  assert.eq(tdb.getCollectionNames().filter((n) => n.startsWith("wc")), ["wc"]);
  assert.eq(tdb.wc.getIndexes().length, 1);
  // A pipeline that writes nothing and w: 1 are untouched.
  assert.commandWorked(run({ aggregate: "wc", pipeline: [{ $match: {} }], cursor: {}, writeConcern: { w: 2 } }));
  assert.commandWorked(run({ create: "wcNew", writeConcern: { w: 1 } }));
  assert.commandWorked(run({ drop: "wcNew", writeConcern: { w: "majority" } }));
}

// --- Codes (error_codes_as_mongod.js)
{
  evaluateFails({ $indexOfCP: [5, "a"] }, 40093);
  assert.commandFailedWithCode(run({ createIndexes: "one", indexes: [{ key: { q: 1 }, name: "q" }],
                                     ignoreUnknownIndexOptions: "yes" }), 14);
  // A document of exactly 16 MiB + 1 byte.
  const doc = { _id: 2, s: "" };
  doc.s = "x".repeat(16 * 1024 * 1024 + 1 - bsonsize(doc));
  assert.eq(bsonsize(doc), 16 * 1024 * 1024 + 1);
  const res = run({ insert: "one", documents: [doc] });
  assert.eq((res.writeErrors ? res.writeErrors[0] : res).code, 2, JSON.stringify(res).slice(0, 300));
  tdb.one.createIndex({ a: 1, b: 1 });
  assert.commandFailedWithCode(run({ find: "one", min: { a: 1 }, max: { b: 2 }, hint: { x: 1 } }), 51176);
  assert.commandFailedWithCode(agg("one", [{ $project: { a: 1, "a.b": 1 } }]), 31249);
  assert.commandFailedWithCode(run({ aggregate: "one", pipeline: { $match: {} }, cursor: {} }), 14);
}

// --- $natural both ways, trigonometry, $const (natural_and_backward_scans.js,
// expressions_trig_date_decimal.js)
{
  assert.eq(tdb.natural.find().sort({ $natural: -1 }).limit(1).toArray().length, 1);
  const close = (a, b) => assert(Math.abs(a - b) < 1e-12, a + " vs " + b);
  for (const [op, x, f] of [["$sin", 1, Math.sin], ["$cos", 1, Math.cos], ["$tan", 1, Math.tan],
                            ["$asin", 0.5, Math.asin], ["$acos", 0.5, Math.acos], ["$atan", 2, Math.atan],
                            ["$sinh", 1, Math.sinh], ["$cosh", 1, Math.cosh], ["$tanh", 1, Math.tanh],
                            ["$asinh", 1, Math.asinh], ["$acosh", 2, Math.acosh], ["$atanh", 0.5, Math.atanh]]) {
    close(evaluate({ [op]: x }), f(x));
  }
  close(evaluate({ $atan2: [1, 1] }), Math.PI / 4);
  close(evaluate({ $degreesToRadians: 180 }), Math.PI);
  close(evaluate({ $radiansToDegrees: Math.PI }), 180);
  evaluateFails({ $acos: 2 }, 50989);
  assert.eq(evaluate({ $const: "$x" }), "$x");
}

// --- Capped collections: tailable/awaitData and convertToCapped (capped_collections.js)
{
  assert.commandWorked(tdb.createCollection("cap", { capped: true, size: 4096, max: 3 }));
  for (let i = 0; i < 5; i++) assert.commandWorked(tdb.cap.insertOne({ _id: i }));
  assert.eq(tdb.cap.find().toArray().map((d) => d._id), [2, 3, 4]);
  let res = assert.commandWorked(tdb.runCommand({ find: "cap", tailable: true, awaitData: true }));
  assert.neq(res.cursor.id, NumberLong("0"));
  assert.commandWorked(tdb.cap.insertOne({ _id: 5 }));
  res = assert.commandWorked(tdb.runCommand({ getMore: res.cursor.id, collection: "cap", maxTimeMS: 1000 }));
  assert.eq(res.cursor.nextBatch.map((d) => d._id), [5]);
  assert.commandFailedWithCode(run({ find: "one", tailable: true }), 2);
  // Refused when parsed (validateFindCommandRequest), capped or not.
  for (const coll of ["cap", "one", "never_created"]) {
    let r = assert.commandFailedWithCode(run({ find: coll, tailable: true, sort: { _id: 1 } }), 2);
    assert.eq(r.errmsg, "cannot use tailable option with a sort other than {$natural: 1}");
    r = assert.commandFailedWithCode(run({ find: coll, tailable: true, singleBatch: true }), 2);
    assert.eq(r.errmsg, "cannot use tailable option with the 'singleBatch' option");
  }
  assert.commandWorked(run({ find: "cap", tailable: true, sort: { $natural: 1 } }));
  assert.commandWorked(tdb.plain.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }]));
  const before = tdb.plain.find().toArray().map((d) => d._id);  // copied in natural order
  assert.commandWorked(run({ convertToCapped: "plain", size: 4096 }));
  assert.eq(tdb.plain.stats().capped, true);
  assert.eq(tdb.plain.find().toArray().map((d) => d._id), before);
}

print("issue19_audit: ok");
