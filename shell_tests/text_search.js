// Text indexes and $text from mongosh (issue #19): MongoDB's stored index
// form, one text index per collection, terms OR'ed, phrases, negations,
// stemming and stop words, $language, $caseSensitive, textScore in
// projection and sort (MongoDB's formula, worked by hand below), and
// MongoDB's codes for misuse.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_text_search");
assert.commandWorked(tdb.dropDatabase());
const c = tdb.articles;
assert.commandWorked(c.insertMany([
  { _id: 1, title: "Coffee", body: "A guide to brewing coffee at home" },
  { _id: 2, title: "Tea", body: "Green tea and black tea" },
  { _id: 3, title: "Coffee and tea", body: "Both" },
  { _id: 4, title: "Decaf", body: "decaf coffee" },
  { _id: 5, title: "Water", body: "still water" },
]));

// $text needs a text index.
assert.commandFailedWithCode(() => c.find({ $text: { $search: "coffee" } }).toArray(), 27);

assert.eq(c.createIndex({ title: "text", body: "text" }, { weights: { title: 10 } }),
          "title_text_body_text");
const idx = c.getIndexes().filter((i) => i.name === "title_text_body_text")[0];
assert.docEq(idx.key, { _fts: "text", _ftsx: 1 });
assert.docEq(idx.weights, { body: 1, title: 10 });
assert.eq(idx.default_language, "english");
assert.eq(idx.language_override, "language");
assert.eq(idx.textIndexVersion, 3);

// One text index per collection; the same one again is a no-op.
assert.commandFailedWithCode(() => c.createIndex({ other: "text" }), 67);
assert.eq(c.createIndex({ title: "text", body: "text" }, { weights: { title: 10 } }),
          "title_text_body_text");
assert.commandFailedWithCode(
  () => c.createIndex({ title: "text", body: "text" }, { weights: { title: 10 }, name: "again" }), 85);
// Bad options keep MongoDB's codes.
assert.commandFailedWithCode(() => tdb.other.createIndex({ a: "text" }, { default_language: "xx" }),
                             17264);
assert.commandFailedWithCode(() => tdb.other.createIndex({ a: "text" }, { weights: 5 }), 17284);
assert.commandFailedWithCode(() => tdb.other.createIndex({ a: "text" }, { textIndexVersion: 2 }),
                             17364);

function ids(filter, sort) {
  let cur = c.find(filter, { score: { $meta: "textScore" } });
  cur = sort ? cur.sort(sort) : cur.sort({ _id: 1 });
  return cur.toArray().map((d) => d._id);
}

// Terms are OR'ed; "brewed" and "brewing" share the stem "brew".
assert.eq(ids({ $text: { $search: "coffee" } }), [1, 3, 4]);
assert.eq(ids({ $text: { $search: "water green" } }), [2, 5]);
assert.eq(ids({ $text: { $search: "brewed" } }), [1]);
// Stop words match nothing.
assert.eq(ids({ $text: { $search: "the and" } }), []);
// Negations and phrases.
assert.eq(ids({ $text: { $search: "coffee -decaf" } }), [1, 3]);
assert.eq(ids({ $text: { $search: "\"green tea\"" } }), [2]);
assert.eq(ids({ $text: { $search: "tea -\"black tea\"" } }), [3]);
assert.eq(ids({ $text: { $search: "-coffee" } }), []);
// Case sensitivity: only _id 2 has "Tea" capitalised.
assert.eq(ids({ $text: { $search: "Tea", $caseSensitive: true } }), [2]);
// With other predicates, at the top level or inside $and.
assert.eq(ids({ $text: { $search: "coffee" }, _id: { $gt: 1 } }), [3, 4]);
assert.eq(ids({ $and: [{ _id: { $lt: 4 } }, { $text: { $search: "coffee" } }] }), [1, 3]);

// textScore: title weight 10, body 1. For "coffee" (stem "coffe"):
//  1: title [coffe] -> 10; body [guid brew coffe home] -> 0.5*1/4+0.5 = 0.625
//  3: title [coffe tea] -> 10 * 0.75 = 7.5
//  4: body [decaf coffe] -> 0.75
const scored = c.find({ $text: { $search: "coffee" } }, { _id: 1, score: { $meta: "textScore" } })
  .sort({ score: { $meta: "textScore" } }).toArray();
assert.eq(scored, [{ _id: 1, score: 10.625 }, { _id: 3, score: 7.5 }, { _id: 4, score: 0.75 }]);
// A term that is the whole string gets 1.1; repeats add 1/2, 1/4, ...:
//  2: title "Tea" -> 10 * 1.1 = 11; body [green tea black tea] -> 1.5 * 0.75 = 1.125
const tea = c.find({ $text: { $search: "tea" } }, { score: { $meta: "textScore" }, title: 1 })
  .sort({ score: { $meta: "textScore" } }).toArray();
assert.eq(tea, [{ _id: 2, title: "Tea", score: 12.125 }, { _id: 3, title: "Coffee and tea", score: 7.5 }]);
// The score sorts descending, ties broken by a second key.
assert.eq(ids({ $text: { $search: "coffee tea" } }, { score: { $meta: "textScore" }, _id: 1 }),
          [3, 2, 1, 4]);
// Alone, the $meta field keeps every other field.
assert.docEq(c.findOne({ $text: { $search: "water" } }, { score: { $meta: "textScore" } }),
             { _id: 5, title: "Water", body: "still water", score: 11.75 });

// count, update and delete take $text too.
assert.eq(c.countDocuments({ $text: { $search: "coffee" } }), 3);
assert.commandWorked(c.updateMany({ $text: { $search: "decaf" } }, { $set: { flagged: true } }));
assert.eq(c.find({ flagged: true }).toArray().map((d) => d._id), [4]);

// Misuse, with MongoDB's codes.
assert.commandFailedWithCode(() => c.find({}, { s: { $meta: "textScore" } }).toArray(), 40218);
assert.commandFailedWithCode(() => c.find({}).sort({ s: { $meta: "textScore" } }).toArray(), 40218);
assert.commandFailedWithCode(
  () => c.find({ $text: { $search: "x" } }, { s: { $meta: "bogus" } }).toArray(), 17308);
assert.commandFailedWithCode(
  () => c.find({}).sort({ s: { $meta: "bogus" } }).toArray(), 31138);
assert.commandFailedWithCode(() => c.find({ $text: { $search: 1 } }).toArray(), 14);
assert.commandFailedWithCode(() => c.find({ $text: { $search: "a", $foo: 1 } }).toArray(), 2);
assert.commandFailedWithCode(
  () => c.find({ $text: { $search: "a", $language: "klingon" } }).toArray(), 2);
assert.commandFailedWithCode(
  () => c.find({ a: { $elemMatch: { $text: { $search: "a" } } } }).toArray(), 2);
assert.commandFailedWithCode(() => c.find({ $nor: [{ $text: { $search: "a" } }] }).toArray(), 2);
assert.commandFailedWithCode(
  () => c.find({ $and: [{ $text: { $search: "a" } }, { $text: { $search: "b" } }] }).toArray(), 2);

// Languages: the index default, the document's language field, $language.
const es = tdb.spanish;
assert.commandWorked(es.insertMany([
  { _id: 1, t: "las casas blancas" },
  { _id: 2, t: "the houses", idioma: "english" },
]));
es.createIndex({ t: "text" }, { default_language: "spanish", language_override: "idioma" });
assert.eq(es.find({ $text: { $search: "casa" } }).toArray().map((d) => d._id), [1]);
assert.eq(es.find({ $text: { $search: "house", $language: "en" } }).toArray().map((d) => d._id), [2]);
// A language field must name a language the index knows (writes refused).
assert.commandFailedWithCode(() => es.insertOne({ _id: 3, t: "x", idioma: "klingon" }), 17262);
assert.commandFailedWithCode(() => es.insertOne({ _id: 3, t: "x", idioma: 5 }), 17261);
assert.eq(es.countDocuments({}), 2);
// "las" is a Spanish stop word: nothing to search for.
assert.eq(es.find({ $text: { $search: "las" } }).toArray().length, 0);

// Dropping the text index makes $text an error again.
assert.commandWorked(c.dropIndex("title_text_body_text"));
assert.commandFailedWithCode(() => c.find({ $text: { $search: "coffee" } }).toArray(), 27);
print("text_search.js: ok");
