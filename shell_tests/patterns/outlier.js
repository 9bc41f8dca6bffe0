// The outlier pattern (reference: five-schema-patterns.txt, "Apply the
// outlier pattern"): first the article's example as written (the
// application keeps the flag and routes reads itself), then the built-in
// version (patterns/README.md, "outlier"): the server keeps `threshold`
// items embedded, moves the rest to an overflow collection in the same
// transaction, sets the flag, keeps a count, and offers a view with the
// whole array.
load(__dirname + "/../lib/assert.js");

const tdb = db.getSiblingDB("shell_outlier");
assert.commandWorked(tdb.dropDatabase());
const reply = (cmd) => commandReply(tdb, cmd);  // lib/assert.js

// --- The article, as written --------------------------------------------------
{
  tdb.products.insertOne({
    name: "Road Tire Tube", sku: "TT-R100", price: 3.99, productType: "component",
    isOutlier: false, reviewSummary: { totalCount: 8, averageRating: 4.1 },
  });
  const bike = tdb.products.insertOne({
    name: "Mountain-100 Silver, 44", sku: "BK-M100S-44", price: 3399.99, productType: "bike",
    isOutlier: true,
    reviewSummary: {
      totalCount: 110, averageRating: 3.9,
      ratingDistribution: { 1: 6, 2: 9, 3: 14, 4: 44, 5: 37 },
      topReviews: [
        { customerName: "Nikhil Barot", rating: 5, title: "Mountain-100 Silver 44 fit during packed dirt" },
        { customerName: "Dusan Sykora", rating: 5, title: "Mountain-100 Silver 44 drivetrain on rolling pavement" },
        { customerName: "Gitte Olsen", rating: 5, title: "Mountain-100 Silver 44 fit during mixed route" },
      ],
    },
    reviewsLocation: "reviews",
  }).insertedId;
  for (let i = 0; i < 110; i++) {
    tdb.reviews.insertOne({ productId: bike, helpful: i, rating: 1 + (i % 5) });
  }
  // The application's two read paths.
  function getProductReviews(productId, page, limit) {
    const product = tdb.products.findOne({ _id: productId });
    if (product.isOutlier) {
      return tdb.reviews.find({ productId }).sort({ helpful: -1 })
        .skip((page - 1) * limit).limit(limit).toArray();
    }
    return product.reviewSummary;
  }
  const page = getProductReviews(bike, 2, 10);
  assert.eq(page.length, 10);
  assert.eq(page[0].helpful, 99);
  const tube = tdb.products.findOne({ sku: "TT-R100" })._id;
  assert.eq(getProductReviews(tube, 1, 10).totalCount, 8);
}

// --- Options: validated with the field named, shown in listCollections ---------
{
  const bad = [
    [{ path: "customers", threshold: 0, overflow: "o" }, 2, "create.outlier.threshold"],
    [{ path: "customers", threshold: 2.5, overflow: "o" }, 9, "create.outlier.threshold"],
    [{ path: "customers", threshold: "10", overflow: "o" }, 14, "create.outlier.threshold"],
    [{ path: "customers", threshold: 10, overflow: "o", chunk: 0 }, 2, "create.outlier.chunk"],
    [{ path: "customers", threshold: 10, overflow: "bad" }, 2, "create.outlier.overflow"],
    [{ path: "customers", threshold: 10, overflow: "o", colour: 1 }, 40415, "create.outlier.colour"],
    [{ path: "customers.name", threshold: 10, overflow: "o" }, 2, "create.outlier.path"],
    [{ threshold: 10, overflow: "o" }, 40414, "create.outlier.path"],
    [{ path: "customers", threshold: 10, overflow: "o", view: "v" }, 2, "create.outlier.view"],
  ];
  for (const [option, code, names] of bad) {
    const res = assert.commandFailedWithCode(reply({ create: "bad", outlier: option }), code, JSON.stringify(option));
    assert.eq(res.errmsg.includes(names), true, res.errmsg);
  }
  assert.eq(tdb.getCollectionNames().includes("bad"), false);
}

// --- Built in -------------------------------------------------------------------
const options = {
  path: "customers", threshold: 1000, overflow: "books_overflow", chunk: 1000,
  flag: "hasExtras", countField: "customersCount", view: "books_full",
};
assert.commandWorked(tdb.createCollection("books", { outlier: options }));
{
  const info = tdb.getCollectionInfos({ name: "books" })[0];
  assert.docEq(info.options.outlier, Object.assign({}, options, {
    threshold: NumberLong("1000"), chunk: NumberLong("1000") }));
  const view = tdb.getCollectionInfos({ name: "books_full" })[0];
  assert.eq(view.type, "view");
  assert.eq(view.options.viewOn, "books");
}

// 2,500 pushes onto one book, 10 onto each of three others.
tdb.books.insertMany([
  { _id: "big", title: "Popular", customers: [] },
  { _id: "a", title: "A", customers: [] },
  { _id: "b", title: "B", customers: [] },
  { _id: "c", title: "C" },
]);
for (let i = 0; i < 2500; i++) {
  const res = tdb.books.updateOne({ _id: "big" }, { $push: { customers: { n: i } } });
  assert.eq(res.modifiedCount, 1);
}
for (const id of ["a", "b", "c"]) {
  for (let i = 0; i < 10; i++) tdb.books.updateOne({ _id: id }, { $push: { customers: { n: i } } });
}
{
  const big = tdb.books.findOne({ _id: "big" });
  assert.eq(big.customers.length, 1000, "threshold items stay embedded");
  assert.eq(big.customers[999].n, 999);
  assert.eq(big.hasExtras, true);
  assert.eq(Number(big.customersCount), 2500);
  const chunks = tdb.books_overflow.find({ parentId: "big" }).sort({ seq: 1 }).toArray();
  assert.eq(chunks.map((c) => c.items.length), [1000, 500]);
  assert.eq(chunks[0].items[0].n, 1000);
  const small = tdb.books.findOne({ _id: "a" });
  assert.eq(small.customers.length, 10);
  assert.eq(small.hasExtras, undefined, "no flag without overflow");
  // The view shows the whole array, in order, read-only.
  const full = tdb.books_full.findOne({ _id: "big" });
  assert.eq(full.customers.length, 2500);
  assert.eq(full.customers.every((c, i) => c.n === i), true);
  assert.eq(tdb.books_full.findOne({ _id: "c" }).customers.length, 10);
  assert.commandFailedWithCode(reply({ insert: "books_full", documents: [{ x: 1 }] }), 166);
  // Only flagged books read overflow documents: the view's $lookup examined
  // exactly the big book's 2 chunks (by _id), none for the three others.
  const lookupOf = (ex) => ex.splitPipeline.mergerPart.find((stage) => stage.$lookup);
  const ex = tdb.books_full.explain("executionStats").aggregate([]);
  assert.eq(Number(lookupOf(ex).totalDocsExamined), 2, JSON.stringify(lookupOf(ex)));
  // Reading one book of the view: the filter runs first (an _id lookup),
  // and an unflagged book examines no overflow document at all.
  const one = (id) => lookupOf(tdb.books_full.find({ _id: id }).explain("executionStats"));
  assert.eq(Number(one("a").totalDocsExamined), 0, JSON.stringify(one("a")));
  assert.eq(Number(one("a").totalKeysExamined), 0);
  assert.eq(Number(one("big").totalDocsExamined), 2);
  const plan = tdb.books_full.find({ _id: "a" }).explain("executionStats");
  assert.eq(plan.splitPipeline.shardsPart[0].$match._id, "a", "the filter leads the view's stages");
  const stats = reply({ collStats: "books" }).patterns.outlier;
  assert.eq(Number(stats.flaggedDocuments), 1);
  assert.eq(Number(stats.overflowDocuments), 2);
}

// $addToSet respects items in the overflow; $push with $each crosses chunks.
{
  let res = tdb.books.updateOne({ _id: "big" }, { $addToSet: { customers: { $each: [{ n: 1500 }, { n: 2 }] } } });
  assert.eq(res.modifiedCount, 0, "both already there (one embedded, one in overflow)");
  res = tdb.books.updateOne({ _id: "big" }, { $addToSet: { customers: { n: 2500 } } });
  assert.eq(res.modifiedCount, 1);
  tdb.books.updateOne({ _id: "big" }, { $push: { customers: { $each: Array.from({ length: 600 }, (_, i) => ({ n: 2501 + i })) } } });
  const chunks = tdb.books_overflow.find({ parentId: "big" }).sort({ seq: 1 }).toArray();
  assert.eq(chunks.map((c) => c.items.length), [1000, 1000, 101]);
  assert.eq(Number(tdb.books.findOne({ _id: "big" }).customersCount), 3101);
}

// Unroutable array updates on the flagged book: refused with code and
// message, nothing applied; on an unflagged book they work as plain MongoDB.
{
  const refusals = [
    [{ $set: { "customers.5": { n: -1 } } }, "'customers.5'"],
    [{ $set: { "customers.$[]": 0 } }, "'customers.$[]'"],
    [{ $pop: { customers: 1 } }, "$pop"],
    [{ $push: { customers: { $each: [{ n: -1 }], $sort: { n: -1 } } } }, "$push with $sort"],
    [{ $push: { customers: { $each: [{ n: -1 }], $slice: 10 } } }, "$push with $slice"],
    [{ $push: { customers: { $each: [{ n: -1 }], $position: 0 } } }, "$push with $position"],
    [{ $rename: { customers: "buyers" } }, "$rename"],
  ];
  for (const [update, names] of refusals) {
    const res = reply({ update: "books", updates: [{ q: { _id: "big" }, u: update }] });
    assert.eq(res.ok, 1);
    assert.eq(res.nModified, 0);
    assert.eq(res.writeErrors[0].code, 72, JSON.stringify(res));  // InvalidOptions
    assert.eq(res.writeErrors[0].errmsg.includes(names), true, res.writeErrors[0].errmsg);
    assert.eq(res.writeErrors[0].errmsg.includes("shell_outlier.books_overflow (outlier option)"), true);
    assert.commandWorked(reply({ update: "books", updates: [{ q: { _id: "a" }, u: update }] }));
  }
  // The positional operator needs the array in the query.
  const res = reply({ update: "books", updates: [{ q: { _id: "big", "customers.n": 3 }, u: { $set: { "customers.$.n": 0 } } }] });
  assert.eq(res.writeErrors[0].code, 72);
  const pipeline = reply({ update: "books", updates: [{ q: { _id: "big" }, u: [{ $set: { t: 1 } }] }] });
  assert.eq(pipeline.writeErrors[0].code, 72);
  assert.eq(tdb.books_full.findOne({ _id: "big" }).customers.length, 3101, "nothing half-applied");
  // Other fields of the flagged book stay writable.
  assert.eq(tdb.books.updateOne({ _id: "big" }, { $set: { title: "Still popular" }, $inc: { sold: 1 } }).modifiedCount, 1);
}

// $pull back until it fits: the embedded part is refilled from the overflow,
// then the overflow documents go and the flag is cleared.
{
  let res = tdb.books.updateOne({ _id: "big" }, { $pull: { customers: { n: { $gte: 2000 } } } });
  assert.eq(res.modifiedCount, 1, "only overflow items matched; still a modification");
  assert.eq(Number(tdb.books.findOne({ _id: "big" }).customersCount), 2000);
  res = tdb.books.updateOne({ _id: "big" }, { $pull: { customers: { n: { $lt: 500 } } } });
  let big = tdb.books.findOne({ _id: "big" });
  assert.eq(big.customers.length, 1000);
  assert.eq(big.customers[0].n, 500, "refilled in order");
  assert.eq(Number(big.customersCount), 1500);
  assert.eq(tdb.books_overflow.countDocuments({ parentId: "big" }), 1);
  tdb.books.updateOne({ _id: "big" }, { $pullAll: { customers: Array.from({ length: 500 }, (_, i) => ({ n: 1500 + i })) } });
  big = tdb.books.findOne({ _id: "big" });
  assert.eq(big.customers.length, 1000);
  assert.eq(big.hasExtras, undefined, "flag cleared when everything fits");
  assert.eq(tdb.books_overflow.countDocuments({ parentId: "big" }), 0);
  const stats = reply({ collStats: "books" }).patterns.outlier;
  assert.eq(Number(stats.flaggedDocuments), 0);
  assert.eq(Number(stats.overflowDocuments), 0);
  // No flagged book left: reading the view examines no overflow document.
  const ex = tdb.books_full.explain("executionStats").find({ _id: "a" }).finish();
  const lookup = ex.splitPipeline.mergerPart.find((stage) => stage.$lookup);
  assert.eq(Number(lookup.totalDocsExamined), 0, JSON.stringify(lookup));
  assert.eq(Number(lookup.totalKeysExamined), 0);
  assert.eq(tdb.books_full.findOne({ _id: "big" }).customers.length, 1000);
  // Unflagged again: array updates work as plain MongoDB.
  assert.eq(tdb.books.updateOne({ _id: "big" }, { $set: { "customers.0.n": -1 } }).modifiedCount, 1);
}

// Limits below, at and above threshold and chunk (threshold 3, chunk 2).
{
  assert.commandWorked(tdb.createCollection("tiny", { outlier: {
    path: "xs", threshold: 3, overflow: "tiny_overflow", chunk: 2, countField: "n" } }));
  for (let n = 0; n <= 8; n++) {
    tdb.tiny.insertOne({ _id: n, xs: Array.from({ length: n }, (_, i) => i) });
    const doc = tdb.tiny.findOne({ _id: n });
    assert.eq(doc.xs.length, Math.min(n, 3), "embedded of " + n);
    assert.eq(doc.isOutlier, n > 3 ? true : undefined, "default flag of " + n);
    assert.eq(Number(doc.n), n);
    const chunks = tdb.tiny_overflow.find({ parentId: n }).sort({ seq: 1 }).toArray();
    assert.eq(chunks.map((c) => c.items.length).reduce((a, b) => a + b, 0), Math.max(0, n - 3));
    assert.eq(chunks.length, n > 3 ? Math.ceil((n - 3) / 2) : 0);
  }
  // Replacing a flagged document lays the new array out from scratch.
  tdb.tiny.replaceOne({ _id: 8 }, { xs: [1, 2, 3, 4] });
  assert.eq(tdb.tiny_overflow.find({ parentId: 8 }).toArray().map((c) => c.items), [[4]]);
  // Deleting a parent deletes its overflow.
  tdb.tiny.deleteMany({ _id: { $gte: 4 } });
  assert.eq(tdb.tiny_overflow.countDocuments({}), 0);
  const v = tdb.tiny.validate();
  assert.eq(v.valid, true, JSON.stringify(v));
  // The option cannot go while documents have overflow; it can once they fit.
  tdb.tiny.insertOne({ _id: 10, xs: [1, 2, 3, 4, 5] });
  const refused = assert.commandFailedWithCode(reply({ collMod: "tiny", outlier: null }), 2);
  assert.eq(refused.errmsg.includes("while 1 documents"), true, refused.errmsg);
  tdb.tiny.updateOne({ _id: 10 }, { $pull: { xs: { $gt: 3 } } });
  assert.commandWorked(reply({ collMod: "tiny", outlier: null }));
  assert.eq(tdb.getCollectionInfos({ name: "tiny" })[0].options.outlier, undefined);
  tdb.tiny.updateOne({ _id: 10 }, { $push: { xs: { $each: [4, 5, 6] } } });
  assert.eq(tdb.tiny.findOne({ _id: 10 }).xs.length, 6, "a plain collection again");
}

// collMod: threshold may change, the layout fields may not.
{
  assert.commandFailedWithCode(reply({ collMod: "books", outlier: Object.assign({}, options, { path: "buyers" }) }), 2);
  assert.commandWorked(reply({ collMod: "books", outlier: Object.assign({}, options, { threshold: 500 }) }));
  assert.eq(tdb.getCollectionInfos({ name: "books" })[0].options.outlier.threshold.toString(), "500");
  // The next array write lays the document out under the new threshold.
  tdb.books.updateOne({ _id: "big" }, { $push: { customers: { n: 5000 } } });
  const big = tdb.books.findOne({ _id: "big" });
  assert.eq(big.customers.length, 500);
  assert.eq(big.hasExtras, true);
  assert.eq(tdb.books_full.findOne({ _id: "big" }).customers.length, 1001);
  const v = tdb.books.validate();
  assert.eq(v.valid, true, JSON.stringify(v));
}
print("outlier.js: ok");
