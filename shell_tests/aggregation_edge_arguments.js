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

// $mod keeps integer types when the divisor is an integral double that
// fits an int (MongoDB's ExpressionMod), else fmod's double.
{
  assert.commandWorked(tdb.m.insertOne({ _id: 1, i: NumberInt(7), l: NumberLong("7"), d: 2.0 }));
  const out = tdb.m.aggregate([{ $project: { _id: 0,
    ii: { $type: { $mod: ["$i", "$d"] } }, li: { $type: { $mod: ["$l", "$d"] } },
    fi: { $type: { $mod: ["$i", 2.5] } }, bi: { $type: { $mod: ["$i", 1e10] } },
    v: { $mod: ["$i", "$d"] } } }]).toArray();
  assert.docEq(out, [{ ii: "int", li: "long", fi: "double", bi: "double", v: 1 }]);
}

print("aggregation_edge_arguments: ok");
