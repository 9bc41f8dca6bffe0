// Small aggregation and distinct arguments that MongoDB treats specially
// (issue #19):
//  * distinct with query: null is a distinct without a query;
//  * $zip with an empty `inputs` list fails when parsed (34465), even over
//    an empty collection;
//  * $unwind with preserveNullAndEmptyArrays outputs a document whose array
//    is empty without that field (the manual's example: {_id: 2, item:
//    "EFG", sizes: []} -> {_id: 2, item: "EFG"}); null and missing stay as
//    they are.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_aggregation_edge_arguments");
assert.commandWorked(tdb.dropDatabase());

// distinct query: null
{
  assert.commandWorked(tdb.d.insertMany([{ a: 1 }, { a: 2 }, { a: 1 }]));
  const res = assert.commandWorked(tdb.runCommand({ distinct: "d", key: "a", query: null }));
  assert.eq(res.values.sort(), [1, 2]);
  assert.commandFailedWithCode(commandReply(tdb, { distinct: "d", key: "a", query: 5 }), 14);
}

// $zip: empty inputs
{
  const z = commandReply(tdb, { aggregate: "empty", pipeline: [{ $project: { z: { $zip: { inputs: [] } } } }], cursor: {} });
  assert.commandFailedWithCode(z, 34465);
  assert.eq(z.errmsg.indexOf("$zip requires at least one input array") >= 0, true, z.errmsg);
  assert.commandFailedWithCode(
      commandReply(tdb, { aggregate: "d", pipeline: [{ $project: { z: { $zip: { inputs: [] } } } }], cursor: {} }), 34465);
}

// $unwind preserveNullAndEmptyArrays
{
  const inv = tdb.inventory;
  assert.commandWorked(inv.insertMany([
    { _id: 1, item: "ABC", sizes: ["S", "M"] },
    { _id: 2, item: "EFG", sizes: [] },
    { _id: 3, item: "IJK", sizes: "M" },
    { _id: 4, item: "LMN" },
    { _id: 5, item: "XYZ", sizes: null },
  ]));
  const out = inv.aggregate([{ $sort: { _id: 1 } }, { $unwind: { path: "$sizes", preserveNullAndEmptyArrays: true } }]).toArray();
  assert.docEq(out, [
    { _id: 1, item: "ABC", sizes: "S" },
    { _id: 1, item: "ABC", sizes: "M" },
    { _id: 2, item: "EFG" },
    { _id: 3, item: "IJK", sizes: "M" },
    { _id: 4, item: "LMN" },
    { _id: 5, item: "XYZ", sizes: null },
  ]);
  const withIndex = inv.aggregate([{ $match: { _id: 2 } },
    { $unwind: { path: "$sizes", includeArrayIndex: "i", preserveNullAndEmptyArrays: true } }]).toArray();
  assert.docEq(withIndex, [{ _id: 2, item: "EFG", i: null }]);
}

print("aggregation_edge_arguments: ok");
