// Views with their own collation (issue #19), as MongoDB 7: a view's
// collation is given at create (never inherited from what it reads), is
// the default of every read of it, may be named by an operation but not
// changed (167 OptionNotSupportedOnView), and every view a view reads or is
// read by ($lookup, $graphLookup, $unionWith, viewOn) shares it.
load(__dirname + "/lib/assert.js");

const vdb = db.getSiblingDB("shell_views_collation");
// mongosh's runCommand throws on ok: 0; commandReply returns the reply either way.
const run = (cmd) => commandReply(vdb, cmd);
assert.commandWorked(vdb.dropDatabase());
const kNotOnView = 167;
const ci = { locale: "en", strength: 2 };

assert.commandWorked(run({ create: "plain" }));
assert.commandWorked(run({ create: "frColl", collation: { locale: "fr" } }));
assert.commandWorked(vdb.plain.insertMany([{ _id: 1, f: "case" }, { _id: 2, f: "Case" }, { _id: 3, f: "CASE" },
                                           { _id: 4, f: "other" }]));
assert.commandWorked(vdb.frColl.insertMany([{ _id: 1, f: "case" }, { _id: 2, f: "Case" }]));

// A view without a collation is simple, even over a collection with one;
// listCollections shows no collation for it.
assert.commandWorked(run({ create: "simpleOnFr", viewOn: "frColl" }));
let info = vdb.getCollectionInfos({ name: "simpleOnFr" })[0];
assert.eq(info.type, "view");
assert.eq(info.options.collation, undefined);
assert.eq(vdb.simpleOnFr.find({ f: "CASE" }).itcount(), 0);  // frColl's default does not apply
assert.commandWorked(run({ find: "simpleOnFr", collation: { locale: "simple" } }));
assert.commandFailedWithCode(run({ find: "simpleOnFr", collation: { locale: "fr" } }), kNotOnView);

// A case-insensitive view over a case-sensitive collection: every read
// runs with the view's collation when it names none.
assert.commandWorked(run({ create: "ciView", viewOn: "plain", collation: ci }));
info = vdb.getCollectionInfos({ name: "ciView" })[0];
assert.eq(info.options.viewOn, "plain");
assert.eq(info.options.collation.locale, "en");
assert.eq(info.options.collation.strength, 2);
assert.eq(info.options.collation.version, "57.1");  // the full normalized spec
assert.eq(vdb.plain.find({ f: "case" }).itcount(), 1);
assert.eq(vdb.ciView.find({ f: "case" }).itcount(), 3);
assert.eq(vdb.ciView.find({ f: "case" }).collation(ci).itcount(), 3);
assert.eq(vdb.ciView.aggregate([{ $match: { f: "case" } }]).itcount(), 3);
assert.eq(vdb.ciView.countDocuments({ f: "CASE" }), 3);
assert.eq(run({ count: "ciView", query: { f: "CASE" } }).n, 3);
assert.eq(vdb.ciView.distinct("f").length, 2);  // "case" (any case) and "other"
assert.eq(vdb.plain.distinct("f").length, 4);
// Sorts and groups follow it too.
assert.eq(vdb.ciView.aggregate([{ $group: { _id: "$f", n: { $sum: 1 } } }, { $sort: { n: -1 } }])
            .toArray()[0].n, 3);
// Explain shows the view's collation.
const explained = run({ explain: { find: "ciView", filter: { f: "case" } } });
assert.commandWorked(explained);
assert(JSON.stringify(explained).includes('"strength":2'), "explain shows the view's collation");

// Another collation, or simple, cannot override a view's: every read command.
for (const other of [{ locale: "fr" }, { locale: "simple" }, { locale: "en", strength: 1 }]) {
  assert.commandFailedWithCode(run({ find: "ciView", collation: other }), kNotOnView);
  assert.commandFailedWithCode(run({ aggregate: "ciView", pipeline: [], cursor: {}, collation: other }),
                               kNotOnView);
  assert.commandFailedWithCode(run({ count: "ciView", collation: other }), kNotOnView);
  assert.commandFailedWithCode(run({ distinct: "ciView", key: "f", collation: other }), kNotOnView);
  assert.commandFailedWithCode(run({ explain: { find: "ciView", collation: other } }), kNotOnView);
  assert.commandFailedWithCode(run({ explain: { count: "ciView", collation: other } }), kNotOnView);
  assert.commandFailedWithCode(run({ explain: { distinct: "ciView", key: "f", collation: other } }),
                               kNotOnView);
  assert.commandFailedWithCode(
      run({ aggregate: "ciView", pipeline: [], explain: true, collation: other }), kNotOnView);
}
const overridden = run({ find: "ciView", collation: { locale: "fr" } });
assert.eq(overridden.errmsg, "Cannot override a view's default collation");
assert.eq(overridden.codeName, "OptionNotSupportedOnView");
// The same collation, spelled with defaults or not, is the view's.
assert.commandWorked(run({ find: "ciView", collation: { locale: "en", strength: 2, caseLevel: false } }));

// Creating the same view again is a no-op only with the same collation.
assert.commandWorked(run({ create: "ciView", viewOn: "plain", collation: ci }));
assert.commandFailedWithCode(run({ create: "ciView", viewOn: "plain" }), 48);
// A bad collation spec is refused as for collections.
assert.commandFailedWithCode(run({ create: "bad", viewOn: "plain", collation: { strength: 2 } }),
                             40414);
assert.commandFailedWithCode(run({ create: "bad", viewOn: "plain", collation: "en" }), 14);

// A view over a view must have its collation.
let res = run({ create: "onCi", viewOn: "ciView", collation: { locale: "fr" } });
assert.commandFailedWithCode(res, kNotOnView);
assert.eq(res.errmsg,
          "View shell_views_collation.onCi has conflicting collation with view shell_views_collation.ciView");
assert.commandFailedWithCode(run({ create: "onCi", viewOn: "ciView" }), kNotOnView);
assert.commandWorked(run({ create: "onCi", viewOn: "ciView", collation: ci }));
assert.eq(vdb.onCi.find({ f: "CASE" }).itcount(), 3);
// ... also through a $lookup, $graphLookup or $unionWith of its pipeline,
// at any depth.
const lookupCi = { $lookup: { from: "ciView", localField: "f", foreignField: "f", as: "r" } };
const nestedLookupCi = { $lookup: { from: "plain", pipeline: [lookupCi], as: "r" } };
const graphLookupCi = { $graphLookup: { from: "ciView", startWith: "$f", connectFromField: "f",
                                        connectToField: "f", as: "g" } };
const unionCi = { $unionWith: { coll: "plain", pipeline: [{ $unionWith: "ciView" }] } };
const facetCi = { $facet: { x: [lookupCi] } };
for (const stage of [lookupCi, nestedLookupCi, graphLookupCi, unionCi, facetCi]) {
  assert.commandFailedWithCode(run({ create: "joins", viewOn: "plain", pipeline: [stage] }), kNotOnView);
  assert.commandWorked(run({ create: "joins", viewOn: "plain", pipeline: [stage], collation: ci }));
  assert.commandWorked(run({ drop: "joins" }));
}
// collMod keeps the view's collation and checks what it now reads.
assert.commandWorked(run({ create: "simpleV", viewOn: "plain" }));
assert.commandFailedWithCode(run({ collMod: "simpleV", viewOn: "ciView", pipeline: [] }), kNotOnView);
assert.commandFailedWithCode(run({ collMod: "simpleV", viewOn: "plain", pipeline: [lookupCi] }),
                             kNotOnView);
assert.commandWorked(run({ collMod: "onCi", viewOn: "plain", pipeline: [lookupCi] }));
assert.eq(vdb.getCollectionInfos({ name: "onCi" })[0].options.collation.strength, 2);

// A view dropped and created again must keep the collation of the views
// that read it (onCi reads ciView through $lookup).
assert.commandWorked(run({ drop: "ciView" }));
res = run({ create: "ciView", viewOn: "plain" });
assert.commandFailedWithCode(res, kNotOnView);
assert.eq(res.errmsg, "View shell_views_collation.ciView has a collation that does not match the collation of " +
                          "view shell_views_collation.onCi");
assert.commandFailedWithCode(run({ create: "ciView", viewOn: "plain", collation: { locale: "fr" } }),
                             kNotOnView);
assert.commandWorked(run({ create: "ciView", viewOn: "plain", collation: ci }));
// Readers that do not exist yet do not matter; a collection of that name
// is not a view and has no such rule.
assert.commandWorked(run({ create: "A", viewOn: "B", collation: { locale: "de" } }));
assert.commandFailedWithCode(run({ create: "B", viewOn: "plain" }), kNotOnView);
assert.commandWorked(run({ create: "B", viewOn: "plain", collation: { locale: "de" } }));
assert.commandFailedWithCode(run({ create: "C", viewOn: "B", collation: { locale: "es" } }), kNotOnView);
assert.commandWorked(run({ drop: "B" }));
assert.commandWorked(run({ create: "B" }));

// Aggregations that read a view must run with its collation.
const sk = "Cannot override a view's default collationshell_views_collation.ciView";
res = run({ aggregate: "plain", pipeline: [lookupCi], cursor: {} });
assert.commandFailedWithCode(res, kNotOnView);
assert.eq(res.errmsg, sk);  // MongoDB's message, the namespace appended without a space
for (const stage of [lookupCi, nestedLookupCi, graphLookupCi, unionCi, facetCi]) {
  assert.commandFailedWithCode(run({ aggregate: "plain", pipeline: [stage], cursor: {} }), kNotOnView);
  assert.commandWorked(run({ aggregate: "plain", pipeline: [stage], cursor: {}, collation: ci }));
  // An aggregation of a view runs with the view's collation.
  assert.commandWorked(run({ aggregate: "onCi", pipeline: [stage], cursor: {} }));
  assert.commandFailedWithCode(run({ aggregate: "simpleV", pipeline: [stage], cursor: {} }), kNotOnView);
}
// A collection's default collation is the operation's when none is given.
assert.commandWorked(run({ create: "ciColl", collation: ci }));
assert.commandWorked(vdb.ciColl.insert({ _id: 1, f: "CASE" }));
const joined = vdb.ciColl.aggregate([lookupCi]).toArray();
assert.eq(joined[0].r.length, 3);  // the $lookup matched under the shared collation
assert.commandFailedWithCode(
    run({ aggregate: "ciColl", pipeline: [lookupCi], cursor: {}, collation: { locale: "simple" } }),
    kNotOnView);
// $lookup of a collection (not a view) is free to differ.
assert.commandWorked(run({
  aggregate: "plain", cursor: {},
  pipeline: [{ $lookup: { from: "ciColl", localField: "f", foreignField: "f", as: "r" } }] }));

// Writes to a view are still refused, collation or not.
assert.commandFailedWithCode(run({ insert: "ciView", documents: [{ f: 1 }] }), 166);

// Views with a collation survive a restart: checked by the e2e test
// CollationTest.ViewCollationIsItsReadsDefaultAndSurvivesRestart.
print("views_collation.js passed");
