// The subset pattern (reference: five-schema-patterns.txt, "Apply the subset
// pattern"): first the article's products/reviews example as written by
// hand (insert the review, then $push with $each/$sort/$slice and $inc on
// the product: two requests that drift apart when one fails), then the
// built-in version (patterns/README.md, "subset"): 110 reviews written over
// several connections, the top 3 exact, a deleted top review replaced by
// the next, exact counters, and direct writes to the kept paths refused.
load(__dirname + "/../lib/assert.js");

const tdb = db.getSiblingDB("shell_subset");
assert.commandWorked(tdb.dropDatabase());
const reply = (cmd) => commandReply(tdb, cmd);  // lib/assert.js

// The article's rating distribution: 110 reviews.
const distribution = { 1: 6, 2: 9, 3: 14, 4: 44, 5: 37 };
const ratings = [];
for (const [rating, n] of Object.entries(distribution)) {
  for (let i = 0; i < n; i++) ratings.push(Number(rating));
}
assert.eq(ratings.length, 110);
const review = (i, productId) => ({
  _id: i, productId, customerName: "Customer " + i, rating: ratings[i],
  title: "Mountain-100 Silver 44 review " + i,
  helpful: (i * 37) % 101,  // distinct for i < 101, ties after
  createdAt: ISODate("2026-04-10T20:34:00Z"),
});
// The top 3 by helpful (ties: smaller _id first), projected.
const expectedTop = (reviews) => reviews.slice()
  .sort((a, b) => b.helpful - a.helpful || a._id - b._id).slice(0, 3)
  .map((r) => ({ _id: r._id, customerName: r.customerName, rating: r.rating, title: r.title }));

// --- The article, as written ---------------------------------------------------
{
  const productId = ObjectId("ccc100030000000000000000");
  tdb.products.insertOne({
    _id: productId, name: "Mountain-100 Silver, 44", price: 3399.99, isOutlier: true,
    reviewSummary: { averageRating: 3.9, totalCount: 110,
      ratingDistribution: { 1: 6, 2: 9, 3: 14, 4: 44, 5: 37 },
      topReviews: [
        { customerName: "Nikhil Barot", rating: 5, title: "Mountain-100 Silver 44 fit during packed dirt", helpful: 300 },
        { customerName: "Dusan Sykora", rating: 5, title: "Mountain-100 Silver 44 drivetrain on rolling pavement", helpful: 250 },
        { customerName: "Gitte Olsen", rating: 5, title: "Mountain-100 Silver 44 fit during mixed route", helpful: 240 },
      ] },
    reviewsLocation: "reviews",
  });
  const newReview = { productId, customerName: "Moina Potongia", rating: 5,
    title: "Mountain-100 Silver 44 rack mounts on 72 kilometer ride", helpful: 237,
    createdAt: ISODate("2026-04-10T20:34:00Z") };
  tdb.reviews.insertOne(newReview);
  // The second request: keep the top 3 and count the review.
  tdb.products.updateOne({ _id: productId }, {
    $push: { "reviewSummary.topReviews": { $each: [{ customerName: newReview.customerName,
      rating: 5, title: newReview.title, helpful: newReview.helpful }],
      $sort: { helpful: -1 }, $slice: 3 } },
    $inc: { "reviewSummary.totalCount": 1, "reviewSummary.ratingDistribution.5": 1 },
  });
  const p = tdb.products.findOne({ _id: productId });
  assert.eq(p.reviewSummary.totalCount, 111);
  assert.eq(p.reviewSummary.topReviews.map((r) => r.helpful), [300, 250, 240]);
  // The average is not maintained by hand here: it drifted already.
  assert.eq(p.reviewSummary.averageRating, 3.9);
}

// --- Built in: the server keeps the subset --------------------------------------
{
  assert.commandWorked(tdb.createCollection("reviews2", { subset: {
    parent: "products2", localField: "productId", foreignField: "_id",
    as: "reviewSummary.topReviews", sort: { helpful: -1 }, limit: 3,
    project: { customerName: 1, rating: 1, title: 1 },
    counters: { "reviewSummary.totalCount": { $sum: 1 },
                "reviewSummary.averageRating": { $avg: "$rating" },
                "reviewSummary.ratingDistribution": { $countByValue: "$rating" } },
  } }));
  const info = tdb.getCollectionInfos({ name: "reviews2" })[0];
  assert.eq(info.options.subset.limit, 3);
  assert.eq(info.options.subset.parent, "products2");
  assert(tdb.reviews2.getIndexes().some((i) => i.name === "productId_1_helpful_-1__id_1"),
    "the option builds its index");
  tdb.products2.insertMany([{ _id: 1, name: "Mountain-100 Silver, 44", price: 3399.99 },
                            { _id: 2, name: "Road-150 Red, 62", price: 3578.27 }]);

  // 110 reviews of product 1 and a few of product 2, written through four
  // connections in turn, one by one and in batches.
  const uri = db.getMongo()._uri;
  const connections = [0, 1, 2, 3].map(() => new Mongo(uri).getDB("shell_subset"));
  const all = [];
  for (let i = 0; i < 110; i++) all.push(review(i, 1));
  for (let i = 0; i < 110; i += 5) {
    const c = connections[(i / 5) % 4];
    if (i % 10 === 0) {
      assert.commandWorked(c.reviews2.insertMany(all.slice(i, i + 5)));
    } else {
      for (const r of all.slice(i, i + 5)) assert.commandWorked(c.reviews2.insertOne(r));
    }
  }
  for (let i = 200; i < 205; i++) tdb.reviews2.insertOne(review(i, 2));

  const summary = () => tdb.products2.findOne({ _id: 1 }).reviewSummary;
  let s = summary();
  assert.eq(s.totalCount, 110);
  assert.eq(s.ratingDistribution, { 1: 6, 2: 9, 3: 14, 4: 44, 5: 37 });
  const sum = ratings.reduce((a, b) => a + b, 0);
  assert.eq(s.averageRating, sum / 110);
  assert.eq(s.topReviews, expectedTop(all));

  // Deleting the best review pulls the next one in; counters follow.
  const best = s.topReviews[0];
  assert.commandWorked(tdb.reviews2.deleteOne({ _id: best._id }));
  const left = all.filter((r) => r._id !== best._id);
  s = summary();
  assert.eq(s.topReviews, expectedTop(left));
  assert.eq(s.totalCount, 109);
  assert.eq(s.ratingDistribution[best.rating], distribution[best.rating] - 1);
  assert.eq(s.averageRating, (sum - best.rating) / 109);

  // Demoting a top review (update of helpful) and promoting another.
  const demoted = s.topReviews[0]._id;
  assert.commandWorked(tdb.reviews2.updateOne({ _id: demoted }, { $set: { helpful: -1 } }));
  left.find((r) => r._id === demoted).helpful = -1;
  assert.commandWorked(tdb.reviews2.updateOne({ _id: 50 }, { $set: { helpful: 1000 } }));
  left.find((r) => r._id === 50).helpful = 1000;
  assert.eq(summary().topReviews, expectedTop(left));
  assert.eq(summary().topReviews[0]._id, 50);

  // A review moved to another product counts there.
  assert.commandWorked(tdb.reviews2.updateOne({ _id: 50 }, { $set: { productId: 2 } }));
  assert.eq(summary().totalCount, 108);
  assert.eq(tdb.products2.findOne({ _id: 2 }).reviewSummary.totalCount, 6);
  assert.eq(tdb.products2.findOne({ _id: 2 }).reviewSummary.topReviews[0]._id, 50);

  // Direct writes to what the subset keeps are refused, naming the option;
  // the product's other fields stay writable.
  let r = reply({ update: "products2", updates: [{ q: { _id: 1 },
    u: { $push: { "reviewSummary.topReviews": { customerName: "me", rating: 5 } } } }] });
  assert.eq(r.writeErrors[0].code, 66);
  assert(r.writeErrors[0].errmsg.includes("subset option of shell_subset.reviews2"), r.writeErrors[0].errmsg);
  r = reply({ update: "products2", updates: [{ q: { _id: 1 },
    u: { $inc: { "reviewSummary.totalCount": 1 } } }] });
  assert.eq(r.writeErrors[0].code, 66);
  assert.commandWorked(tdb.products2.updateOne({ _id: 1 }, { $set: { price: 2999.99 } }));
  assert.eq(tdb.products2.findOne({ _id: 1 }).price, 2999.99);

  // A review of a product that does not exist is stored; no product appears.
  assert.commandWorked(tdb.reviews2.insertOne(review(300, 99)));
  assert.eq(tdb.products2.countDocuments({ _id: 99 }), 0);

  // validate recomputes the products from the reviews.
  const v = tdb.runCommand({ validate: "reviews2" });
  assert.commandWorked(v);
  assert.eq(v.errors, []);
  assert.eq(v.valid, true);

  // collMod onto existing reviews, then resyncSubset fills the products.
  tdb.products3.insertMany([{ _id: 1 }, { _id: 2 }]);
  tdb.reviews3.insertMany(all.map((x) => Object.assign({}, x, { productId: 1 + (x._id % 2) })));
  assert.commandWorked(tdb.runCommand({ collMod: "reviews3", subset: {
    parent: "products3", localField: "productId", as: "top", sort: { helpful: -1 }, limit: 3,
    counters: { n: { $sum: 1 } } } }));
  const resync = tdb.runCommand({ resyncSubset: "reviews3", batchSize: 1 });
  assert.commandWorked(resync);
  assert.eq(resync.parentsMatched, 2);
  assert.eq(tdb.products3.findOne({ _id: 1 }).n, 55);
  assert.eq(tdb.products3.findOne({ _id: 2 }).top.length, 3);
  // collStats and explain show the pattern.
  const stats = tdb.runCommand({ collStats: "reviews3" });
  assert.eq(stats.patterns.subset.parent, "shell_subset.products3");
  assert.eq(Number(stats.patterns.subset.parentKeys), 2);
  const explained = tdb.reviews3.find({ productId: 1 }).explain();
  assert.eq(explained.queryPlanner.patterns.subset.as, "top");

  // Multi-document writes, upserts and findAndModify keep the products too.
  assert.commandWorked(tdb.reviews2.updateMany({ productId: 1 }, { $inc: { helpful: 1 } }));
  assert.commandWorked(tdb.reviews2.updateOne({ _id: 400 }, { $set: { productId: 1, helpful: 5000,
    rating: 5, title: "upserted" } }, { upsert: true }));
  assert.eq(summary().topReviews[0]._id, 400);
  tdb.reviews2.findOneAndDelete({ _id: 400 });
  assert.commandWorked(tdb.reviews2.deleteMany({ productId: 2 }));
  assert.eq(tdb.products2.findOne({ _id: 2 }).reviewSummary.totalCount, 0);
  assert.eq(tdb.products2.findOne({ _id: 2 }).reviewSummary.topReviews, []);
  assert.eq(tdb.runCommand({ validate: "reviews2" }).errors, []);

  // Without the option (collMod subset: null) the product's fields are
  // ordinary fields again.
  assert.commandWorked(tdb.runCommand({ collMod: "reviews2", subset: null }));
  assert.commandWorked(tdb.products2.updateOne({ _id: 1 }, { $set: { "reviewSummary.totalCount": 0 } }));
  assert.eq(tdb.getCollectionInfos({ name: "reviews2" })[0].options.subset, undefined);

  // Errors name the field.
  r = reply({ create: "bad", subset: { parent: "products2", localField: "productId",
    as: "top", limit: 0 } });
  assert.commandFailedWithCode(r, 2);
  assert(r.errmsg.includes("create.subset.limit"), r.errmsg);
  r = reply({ create: "bad", subset: { parent: "products2", localField: "productId",
    as: "top", colour: 1 } });
  assert.commandFailedWithCode(r, 40415);
  r = reply({ create: "bad", subset: { parent: "products2", localField: "productId",
    as: "top", counters: { n: { $sum: "rating" } } } });
  assert.commandFailedWithCode(r, 9);
}
