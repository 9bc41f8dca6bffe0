// Query and projection operators, using the examples of their MongoDB manual
// reference pages with the results those pages document:
//   https://www.mongodb.com/docs/manual/reference/operator/query/in/
//   https://www.mongodb.com/docs/manual/reference/operator/query/nin/
//   https://www.mongodb.com/docs/manual/reference/operator/query/ne/
//   https://www.mongodb.com/docs/manual/reference/operator/query/exists/
//   https://www.mongodb.com/docs/manual/reference/operator/query/type/
//   https://www.mongodb.com/docs/manual/reference/operator/query/regex/
//   https://www.mongodb.com/docs/manual/reference/operator/query/all/
//   https://www.mongodb.com/docs/manual/reference/operator/query/elemMatch/
//   https://www.mongodb.com/docs/manual/reference/operator/query/size/
//   https://www.mongodb.com/docs/manual/reference/operator/query/mod/
//   https://www.mongodb.com/docs/manual/reference/operator/query/not/
//   https://www.mongodb.com/docs/manual/reference/operator/query/nor/
//   https://www.mongodb.com/docs/manual/reference/operator/query/or/
//   https://www.mongodb.com/docs/manual/reference/operator/query/and/
//   https://www.mongodb.com/docs/manual/reference/operator/query/bitsAllSet/
//   https://www.mongodb.com/docs/manual/reference/operator/query/bitsAnySet/
//   https://www.mongodb.com/docs/manual/reference/operator/query/bitsAllClear/
//   https://www.mongodb.com/docs/manual/reference/operator/query/bitsAnyClear/
//   https://www.mongodb.com/docs/manual/reference/operator/projection/slice/
//   https://www.mongodb.com/docs/manual/reference/operator/projection/elemMatch/
//   https://www.mongodb.com/docs/manual/reference/operator/projection/positional/
//
// Where a page gives a query but no data ($nin, $not, $nor, $or, $and,
// $size, $elemMatch), its prose says which documents must match; those
// queries run on that page's own sample documents when it has some, else on
// the smallest documents the prose describes.
//
// Unsorted results are compared as sets (by _id, or by item): MongoDB does
// not define the order of a find() without sort().
//
// Skipped: $expr inside $and/$or ("Error Handling" examples), $text, geo,
// the countDocuments() calls of the $exists page (aggregation), and the
// sparse-index part of the $exists page (createIndex): not implemented yet.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_query_operators");
assert.commandWorked(tdb.dropDatabase());

function byId(cursor) {
  return cursor.toArray().sort((a, b) => (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));
}
function withoutIds(docs) {
  return docs
    .map((d) => {
      const copy = Object.assign({}, d);
      delete copy._id;
      return copy;
    })
    .sort((a, b) => (a.item < b.item ? -1 : a.item > b.item ? 1 : 0));
}
function items(cursor) {
  return cursor.toArray().map((d) => d.item).sort().join();
}

// --- $in -------------------------------------------------------------------
{
  const inventory = tdb.in_inventory;
  inventory.insertMany([
    { item: "Pens", quantity: 350, tags: ["school", "office"] },
    { item: "Erasers", quantity: 15, tags: ["school", "home"] },
    { item: "Maps", tags: ["office", "storage"] },
    { item: "Books", quantity: 5, tags: ["school", "storage", "home"] },
  ]);
  assert.docEq(
    withoutIds(inventory.find({ quantity: { $in: [5, 15] } }, { _id: 0 }).toArray()),
    withoutIds([
      { item: "Erasers", quantity: 15, tags: ["school", "home"] },
      { item: "Books", quantity: 5, tags: ["school", "storage", "home"] },
    ]),
    "$in on values",
  );
  const res = inventory.updateMany({ tags: { $in: ["home", "school"] } }, { $set: { exclude: false } });
  assert.eq(res.matchedCount, 3, "$in updateMany matched");
  assert.docEq(
    withoutIds(inventory.find({ exclude: false }).toArray()),
    withoutIds([
      { item: "Pens", quantity: 350, tags: ["school", "office"], exclude: false },
      { item: "Erasers", quantity: 15, tags: ["school", "home"], exclude: false },
      { item: "Books", quantity: 5, tags: ["school", "storage", "home"], exclude: false },
    ]),
    "$in on an array field",
  );
  // $in with regular expressions: tags with an element starting "be" or "st".
  assert.eq(items(inventory.find({ tags: { $in: [/^be/, /^st/] } })), "Books,Maps", "$in with regexes");
}

// --- $nin ------------------------------------------------------------------
// "selects the documents where the field value is not in the specified
// array or the field does not exist" (run on the $in page's documents).
{
  const inventory = tdb.nin_inventory;
  inventory.insertMany([
    { item: "Pens", quantity: 350, tags: ["school", "office"] },
    { item: "Erasers", quantity: 15, tags: ["school", "home"] },
    { item: "Maps", tags: ["office", "storage"] },
    { item: "Books", quantity: 5, tags: ["school", "storage", "home"] },
  ]);
  assert.eq(items(inventory.find({ quantity: { $nin: [5, 15] } })), "Maps,Pens", "$nin includes missing fields");
  // "the tags field holds an array with no elements matching ... or where a
  // document does not contain the tags field".
  const res = inventory.updateMany({ tags: { $nin: ["appliances", "school"] } }, { $set: { sale: false } });
  assert.eq(res.matchedCount, 1, "$nin on an array field");
  assert.eq(items(inventory.find({ sale: false })), "Maps", "$nin on an array field: which");
}

// --- $ne -------------------------------------------------------------------
{
  const inventory = tdb.ne_inventory;
  inventory.insertMany([
    { item: "nuts", quantity: 30, carrier: { name: "Shipit", fee: 3 } },
    { item: "bolts", quantity: 50, carrier: { name: "Shipit", fee: 4 } },
    { item: "washers", quantity: 10, carrier: { name: "Shipit", fee: 1 } },
  ]);
  assert.eq(items(inventory.find({ quantity: { $ne: 20 } })), "bolts,nuts,washers", "$ne");
  inventory.updateMany({ "carrier.fee": { $ne: 1 } }, { $set: { price: 9.99 } });
  assert.docEq(
    withoutIds(inventory.find().toArray()),
    withoutIds([
      { item: "nuts", quantity: 30, carrier: { name: "Shipit", fee: 3 }, price: 9.99 },
      { item: "bolts", quantity: 50, carrier: { name: "Shipit", fee: 4 }, price: 9.99 },
      { item: "washers", quantity: 10, carrier: { name: "Shipit", fee: 1 } },
    ]),
    "$ne on an embedded field",
  );
  // Arrays.
  inventory.updateOne({ item: "nuts" }, { $set: { type: ["hardware"] } });
  inventory.updateOne({ item: "bolts" }, { $set: { type: ["hardware", "fasteners"] } });
  assert.eq(items(inventory.find({ type: { $ne: ["hardware", "fasteners"] } })), "nuts,washers", "$ne array");
  assert.eq(
    items(inventory.find({ type: { $ne: ["fasteners", "hardware"] } })),
    "bolts,nuts,washers",
    "$ne reversed array",
  );
  assert.eq(items(inventory.find({ type: { $ne: "fasteners" } })), "nuts,washers", "$ne element");
}

// --- $exists ---------------------------------------------------------------
{
  const spices = tdb.exists_spices;
  spices.insertMany([
    { saffron: 5, cinnamon: 5, mustard: null },
    { saffron: 3, cinnamon: null, mustard: 8 },
    { saffron: null, cinnamon: 3, mustard: 9 },
    { saffron: 1, cinnamon: 2, mustard: 3 },
    { saffron: 2, mustard: 5 },
    { saffron: 3, cinnamon: 2 },
    { saffron: 4 },
    { cinnamon: 2, mustard: 4 },
    { cinnamon: 2 },
    { mustard: 6 },
  ]);
  const strip = (docs) =>
    docs.map((d) => {
      const c = Object.assign({}, d);
      delete c._id;
      return EJSON.stringify(c);
    }).sort();
  assert.eq(
    strip(spices.find({ saffron: { $exists: true } }).toArray()),
    strip([
      { saffron: 5, cinnamon: 5, mustard: null },
      { saffron: 3, cinnamon: null, mustard: 8 },
      { saffron: null, cinnamon: 3, mustard: 9 },
      { saffron: 1, cinnamon: 2, mustard: 3 },
      { saffron: 2, mustard: 5 },
      { saffron: 3, cinnamon: 2 },
      { saffron: 4 },
    ]),
    "$exists: true",
  );
  assert.eq(
    strip(spices.find({ cinnamon: { $exists: false } }).toArray()),
    strip([{ saffron: 2, mustard: 5 }, { saffron: 4 }, { mustard: 6 }]),
    "$exists: false",
  );

  // stockSales, without the sparse index: the documented counts ("returns 5",
  // "returns 4") through the count command.
  const stockSales = tdb.exists_stockSales;
  stockSales.insertMany([
    { _id: 0, symbol: "MDB", auditDate: new Date("2021-05-18T16:12:23Z") },
    { _id: 1, symbol: "MDB", auditDate: new Date("2021-04-21T11:34:45Z") },
    { _id: 2, symbol: "MSFT", auditDate: new Date("2021-02-24T15:11:32Z") },
    { _id: 3, symbol: "MSFT", auditDate: null },
    { _id: 4, symbol: "MSFT", auditDate: new Date("2021-07-13T18:32:54Z") },
    { _id: 5, symbol: "AAPL" },
  ]);
  const n = (q) => assert.commandWorked(tdb.runCommand({ count: "exists_stockSales", query: q })).n;
  assert.eq(n({ auditDate: { $exists: true } }), 5, "count $exists: true");
  assert.eq(n({ auditDate: { $ne: null } }), 4, "count $ne: null");
}

// --- $type -----------------------------------------------------------------
{
  // The page was written for the legacy shell, where 43339374 is a double;
  // mongosh sends integral numbers as int32, so Double() restores the
  // documented data.
  const addressBook = tdb.type_addressBook;
  addressBook.insertMany([
    { _id: 1, address: "2030 Martian Way", zipCode: "90698345" },
    { _id: 2, address: "156 Lunar Place", zipCode: Double(43339374) },
    { _id: 3, address: "2324 Pluto Place", zipCode: Long(3921412) },
    { _id: 4, address: "55 Saturn Ring", zipCode: Int32(88602117) },
    { _id: 5, address: "104 Venus Drive", zipCode: ["834847278", "1893289032"] },
  ]);
  const ids = (q) => byId(addressBook.find(q)).map((d) => d._id).join();
  assert.eq(ids({ zipCode: { $type: 2 } }), "1,5", "$type 2");
  assert.eq(ids({ zipCode: { $type: "string" } }), "1,5", "$type string");
  assert.eq(ids({ zipCode: { $type: 1 } }), "2", "$type 1");
  assert.eq(ids({ zipCode: { $type: "double" } }), "2", "$type double");
  assert.eq(ids({ zipCode: { $type: "number" } }), "2,3,4", "$type number");

  const grades = tdb.type_grades;
  grades.insertMany([
    { _id: 1, name: "Alice King", classAverage: 87.333333333333333 },
    { _id: 2, name: "Bob Jenkins", classAverage: "83.52" },
    { _id: 3, name: "Cathy Hart", classAverage: "94.06" },
    { _id: 4, name: "Drew Williams", classAverage: Int32("93") },
  ]);
  const expected = [
    { _id: 1, name: "Alice King", classAverage: 87.33333333333333 },
    { _id: 2, name: "Bob Jenkins", classAverage: "83.52" },
    { _id: 3, name: "Cathy Hart", classAverage: "94.06" },
  ];
  assert.docEq(byId(grades.find({ classAverage: { $type: [2, 1] } })), expected, "$type [2, 1]");
  assert.docEq(byId(grades.find({ classAverage: { $type: ["string", "double"] } })), expected, "$type aliases");

  const data = tdb.type_data;
  data.insertMany([{ _id: 1, x: MinKey() }, { _id: 2, y: MaxKey() }]);
  assert.eq(data.find({ x: { $type: "minKey" } }).toArray().map((d) => d._id).join(), "1", "$type minKey");
  assert.eq(data.find({ y: { $type: "maxKey" } }).toArray().map((d) => d._id).join(), "2", "$type maxKey");

  const restaurants = tdb.type_restaurants;
  restaurants.insertMany([
    {
      _id: 1,
      address: { building: "230", coord: [-73.996089, 40.675018], street: "Huntington St", zipcode: "11231" },
      borough: "Brooklyn",
      cuisine: "Bakery",
      grades: [
        { date: new Date(1393804800000), grade: "C", score: 15 },
        { date: new Date(1378857600000), grade: "C", score: 16 },
        { date: new Date(1358985600000), grade: MinKey(), score: 30 },
        { date: new Date(1322006400000), grade: "C", score: 15 },
      ],
      name: "Dirty Dan's Donuts",
      restaurant_id: "30075445",
    },
    {
      _id: 2,
      address: { building: "1166", coord: [-73.955184, 40.738589], street: "Manhattan Ave", zipcode: "11222" },
      borough: "Brooklyn",
      cuisine: "Bakery",
      grades: [
        { date: new Date(1393804800000), grade: MaxKey(), score: 2 },
        { date: new Date(1378857600000), grade: "B", score: 6 },
        { date: new Date(1358985600000), grade: MaxKey(), score: 3 },
        { date: new Date(1322006400000), grade: "B", score: 5 },
      ],
      name: "Dainty Daisey's Donuts",
      restaurant_id: "30075449",
    },
  ]);
  let got = restaurants.find({ "grades.grade": { $type: "minKey" } }).toArray();
  assert.eq(got.map((d) => d._id).join(), "1", "$type minKey in an array of documents");
  assert.eq(got[0].grades[2].date.toISOString(), "2013-01-24T00:00:00.000Z", "documented ISODate");
  got = restaurants.find({ "grades.grade": { $type: "maxKey" } }).toArray();
  assert.eq(got.map((d) => d._id).join(), "2", "$type maxKey in an array of documents");

  const sensorReading = tdb.type_sensorReading;
  sensorReading.insertMany([
    { _id: 1, readings: [25, 23, ["Warn: High Temp!", 55], ["ERROR: SYSTEM SHUTDOWN!", 66]] },
    { _id: 2, readings: [25, 25, 24, 23] },
    { _id: 3, readings: [22, 24, []] },
    { _id: 4, readings: [] },
    { _id: 5, readings: 24 },
  ]);
  assert.docEq(
    byId(sensorReading.find({ readings: { $type: "array" } })),
    [
      { _id: 1, readings: [25, 23, ["Warn: High Temp!", 55], ["ERROR: SYSTEM SHUTDOWN!", 66]] },
      { _id: 2, readings: [25, 25, 24, 23] },
      { _id: 3, readings: [22, 24, []] },
      { _id: 4, readings: [] },
    ],
    "$type array",
  );
}

// --- $regex ----------------------------------------------------------------
{
  const products = tdb.regex_products;
  products.insertMany([
    { _id: 100, sku: "abc123", description: "Single line description." },
    { _id: 101, sku: "abc789", description: "First line\nSecond line" },
    { _id: 102, sku: "xyz456", description: "Many spaces before     line" },
    { _id: 103, sku: "xyz789", description: "Multiple\nline description" },
    { _id: 104, sku: "Abc789", description: "SKU starts with A" },
  ]);
  const ids = (q) => byId(products.find(q)).map((d) => d._id).join();
  assert.docEq(
    byId(products.find({ sku: { $regex: /789$/ } })),
    [
      { _id: 101, sku: "abc789", description: "First line\nSecond line" },
      { _id: 103, sku: "xyz789", description: "Multiple\nline description" },
      { _id: 104, sku: "Abc789", description: "SKU starts with A" },
    ],
    "LIKE match",
  );
  assert.eq(ids({ sku: { $regex: /^ABC/i } }), "100,101,104", "case-insensitive");
  assert.eq(ids({ description: { $regex: /^S/, $options: "m" } }), "100,101,104", "multiline");
  assert.eq(ids({ description: { $regex: /^S/ } }), "100,104", "without m");
  assert.eq(ids({ description: { $regex: /S/ } }), "100,101,104", "no anchor");
  assert.eq(ids({ description: { $regex: /m.*line/, $options: "si" } }), "102,103", "dot matches newline");
  assert.eq(ids({ description: { $regex: /m.*line/, $options: "i" } }), "102", "without s");
  const pattern = "abc #category code\n123 #item number";
  assert.eq(ids({ sku: { $regex: pattern, $options: "x" } }), "100", "extended");
  assert.eq(ids({ sku: { $regex: "(?i)a(?-i)bc" } }), "100,101,104", "inline case options");

  // \b without (*UCP) treats Ö as a non-word character.
  const songs = tdb.regex_songs;
  songs.insertMany([
    { _id: 0, artist: "Blue Öyster Cult", title: "The Reaper" },
    { _id: 1, artist: "Blue Öyster Cult", title: "Godzilla" },
    { _id: 2, artist: "Blue Oyster Cult", title: "Take Me Away" },
  ]);
  assert.eq(byId(songs.find({ artist: { $regex: /\byster/ } })).map((d) => d._id).join(), "0,1", "\\b without UCP");
  assert.eq(songs.find({ artist: { $regex: "(*UCP)/\byster/" } }).toArray().length, 0, "(*UCP)");

  // $not with a regex object and with $regex ("does not start with p"),
  // on the query tutorial's inventory.
  const inventory = tdb.regex_inventory;
  inventory.insertMany([
    { item: "journal", qty: 25 },
    { item: "notebook", qty: 50 },
    { item: "paper", qty: 100 },
    { item: "planner", qty: 75 },
    { item: "postcard", qty: 45 },
  ]);
  assert.eq(items(inventory.find({ item: { $not: /^p.*/ } })), "journal,notebook", "$not regex object");
  assert.eq(items(inventory.find({ item: { $not: { $regex: "^p.*" } } })), "journal,notebook", "$not $regex string");
  assert.eq(items(inventory.find({ item: { $not: { $regex: /^p.*/ } } })), "journal,notebook", "$not $regex object");
}

// --- $all ------------------------------------------------------------------
{
  const inventory = tdb.all_inventory;
  const xyz = {
    _id: ObjectId("5234cc89687ea597eabee675"),
    code: "xyz",
    tags: ["school", "book", "bag", "headphone", "appliance"],
    qty: [
      { size: "S", num: 10, color: "blue" },
      { size: "M", num: 45, color: "blue" },
      { size: "L", num: 100, color: "green" },
    ],
  };
  const abc = {
    _id: ObjectId("5234cc8a687ea597eabee676"),
    code: "abc",
    tags: ["appliance", "school", "book"],
    qty: [
      { size: "6", num: 100, color: "green" },
      { size: "6", num: 50, color: "blue" },
      { size: "8", num: 100, color: "brown" },
    ],
  };
  const efg = {
    _id: ObjectId("5234ccb7687ea597eabee677"),
    code: "efg",
    tags: ["school", "book"],
    qty: [
      { size: "S", num: 10, color: "blue" },
      { size: "M", num: 100, color: "blue" },
      { size: "L", num: 100, color: "green" },
    ],
  };
  const ijk = {
    _id: ObjectId("52350353b2eff1353b349de9"),
    code: "ijk",
    tags: ["electronics", "school"],
    qty: [{ size: "M", num: 100, color: "green" }],
  };
  inventory.insertMany([xyz, abc, efg, ijk]);
  const sorted = (docs) => docs.sort((a, b) => (a.code < b.code ? -1 : 1));
  assert.docEq(
    sorted(inventory.find({ tags: { $all: ["appliance", "school", "book"] } }).toArray()),
    sorted([xyz, abc]),
    "$all values",
  );
  assert.docEq(
    sorted(
      inventory
        .find({
          qty: {
            $all: [
              { $elemMatch: { size: "M", num: { $gt: 50 } } },
              { $elemMatch: { num: 100, color: "green" } },
            ],
          },
        })
        .toArray(),
    ),
    sorted([efg, ijk]),
    "$all with $elemMatch",
  );
  // "Both queries will select all documents ... where the value of the num
  // field equals 50."
  assert.eq(inventory.find({ "qty.num": { $all: [50] } }).toArray().map((d) => d.code).join(), "abc", "$all [50]");
  assert.eq(inventory.find({ "qty.num": 50 }).toArray().map((d) => d.code).join(), "abc", "qty.num: 50");
  // "When passed an empty array, $all matches no documents."
  assert.eq(inventory.find({ tags: { $all: [] } }).toArray().length, 0, "$all []");

  // Nested array: matches a field equal to the nested array or containing it.
  const articles = tdb.all_articles;
  articles.insertMany([
    { _id: 1, tags: [["ssl", "security"], "other"] },
    { _id: 2, tags: ["ssl", "security"] },
    { _id: 3, tags: ["security", "ssl"] },
  ]);
  assert.eq(
    byId(articles.find({ tags: { $all: [["ssl", "security"]] } })).map((d) => d._id).join(),
    "1,2",
    "$all nested array",
  );
}

// --- $elemMatch (query) ----------------------------------------------------
{
  const scores = tdb.elemMatch_scores;
  scores.insertMany([
    { _id: 1, results: [82, 85, 88] },
    { _id: 2, results: [75, 88, 89] },
  ]);
  assert.docEq(
    scores.find({ results: { $elemMatch: { $gte: 80, $lt: 85 } } }).toArray(),
    [{ _id: 1, results: [82, 85, 88] }],
    "$elemMatch element match",
  );
  const survey = tdb.elemMatch_survey;
  survey.insertMany([
    { _id: 1, results: [{ product: "abc", score: 10 }, { product: "xyz", score: 5 }] },
    { _id: 2, results: [{ product: "abc", score: 8 }, { product: "xyz", score: 7 }] },
    { _id: 3, results: [{ product: "abc", score: 7 }, { product: "xyz", score: 8 }] },
  ]);
  assert.docEq(
    survey.find({ results: { $elemMatch: { product: "xyz", score: { $gte: 8 } } } }).toArray(),
    [{ _id: 3, results: [{ product: "abc", score: 7 }, { product: "xyz", score: 8 }] }],
    "$elemMatch on an array of embedded documents",
  );
}
{
  // "the following document would not match ... while the following
  // document would match this query".
  const c = tdb.elemMatch_collection;
  c.insertMany([
    { _id: 1, array: [{ value1: 1, value2: 0 }, { value1: 2, value2: 2 }] },
    { _id: 2, array: [{ value1: 1, value2: 0 }, { value1: 1, value2: 2 }] },
  ]);
  assert.eq(
    c.find({ array: { $elemMatch: { value1: 1, value2: { $gt: 1 } } } }).toArray().map((d) => d._id).join(),
    "2",
    "$elemMatch",
  );
}

// --- $size -----------------------------------------------------------------
{
  // "will return { field: [ red, green ] } and { field: [ apple, lime ] } but
  // not { field: fruit } or { field: [ orange, lemon, grapefruit ] }".
  const c = tdb.size_collection;
  c.insertMany([
    { _id: 1, field: ["red", "green"] },
    { _id: 2, field: ["apple", "lime"] },
    { _id: 3, field: "fruit" },
    { _id: 4, field: ["orange", "lemon", "grapefruit"] },
    { _id: 5, field: ["kiwi"] },
  ]);
  assert.eq(byId(c.find({ field: { $size: 2 } })).map((d) => d._id).join(), "1,2", "$size 2");
  assert.eq(byId(c.find({ field: { $size: 1 } })).map((d) => d._id).join(), "5", "$size 1");
}

// --- $mod ------------------------------------------------------------------
{
  const inventory = tdb.mod_inventory;
  inventory.insertMany([
    { _id: 1, item: "abc123", qty: 0 },
    { _id: 2, item: "xyz123", qty: 5 },
    { _id: 3, item: "ijk123", qty: 12 },
  ]);
  const documented = [
    { _id: 1, item: "abc123", qty: 0 },
    { _id: 3, item: "ijk123", qty: 12 },
  ];
  assert.docEq(byId(inventory.find({ qty: { $mod: [4, 0] } })), documented, "$mod [4, 0]");
  // Floating point divisors are truncated towards zero.
  assert.docEq(byId(inventory.find({ qty: { $mod: [4.0, 0] } })), documented, "$mod [4.0, 0]");
  assert.docEq(byId(inventory.find({ qty: { $mod: [4.5, 0] } })), documented, "$mod [4.5, 0]");
  assert.docEq(byId(inventory.find({ qty: { $mod: [4.99, 0] } })), documented, "$mod [4.99, 0]");
  assert.docEq(byId(inventory.find({ qty: { $mod: [-4, -0] } })), documented, "$mod [-4, -0]");
  // The documented errors ("MongoServerError: malformed mod, ...").
  let e = assert.throwsWithCode(() => inventory.find({ qty: { $mod: [4] } }).toArray(), 2, "$mod [4]");
  assert.eq(e.errmsg, "malformed mod, not enough elements", "$mod [4] message");
  e = assert.throwsWithCode(() => inventory.find({ qty: { $mod: [] } }).toArray(), 2, "$mod []");
  assert.eq(e.errmsg, "malformed mod, not enough elements", "$mod [] message");
  e = assert.throwsWithCode(() => inventory.find({ qty: { $mod: [4, 1, 2, 3] } }).toArray(), 2, "$mod [4, 1, 2, 3]");
  assert.eq(e.errmsg, "malformed mod, too many elements", "$mod too many message");
}

// --- $not, $nor, $or, $and -------------------------------------------------
// These pages describe which documents match without giving data; the
// documents below cover each case their prose lists.
{
  const inventory = tdb.logical_inventory;
  inventory.insertMany([
    { _id: 1, price: 1.99, qty: 10, sale: true },
    { _id: 2, price: 1.99, qty: 30, sale: false },
    { _id: 3, price: 2.5, qty: 30, sale: true },
    { _id: 4, price: 2.5, qty: 30, sale: false },
    { _id: 5, price: 2.5, qty: 30 },
    { _id: 6, qty: 30, sale: false },
    { _id: 7, qty: 5 },
    { _id: 8, price: 10, qty: 25 },
  ]);
  const ids = (q) => byId(inventory.find(q)).map((d) => d._id).join();
  // $not: "price less than or equal to 1.99 or the price field does not exist".
  assert.eq(ids({ price: { $not: { $gt: 1.99 } } }), "1,2,6,7", "$not $gt");
  // "{ $lte: 1.99 } returns only the documents where price field exists".
  assert.eq(ids({ price: { $lte: 1.99 } }), "1,2", "$lte");
  // { $not: { $eq: 1.99 } } is equivalent to { $ne: 1.99 }.
  assert.eq(ids({ price: { $not: { $eq: 1.99 } } }), ids({ price: { $ne: 1.99 } }), "$not $eq == $ne");
  // $nor with two expressions: price != 1.99 (or missing) and sale != true
  // (or missing).
  assert.eq(ids({ $nor: [{ price: 1.99 }, { sale: true }] }), "4,5,6,7,8", "$nor two expressions");
  // $nor with three expressions.
  assert.eq(ids({ $nor: [{ price: 1.99 }, { qty: { $lt: 20 } }, { sale: true }] }), "4,5,6,8", "$nor three");
  // $nor with $exists: only documents that have both fields, neither equal.
  assert.eq(
    ids({ $nor: [{ price: 1.99 }, { price: { $exists: false } }, { sale: true }, { sale: { $exists: false } }] }),
    "4",
    "$nor with $exists",
  );
  // $or: quantity < 20 or price == 10 (this collection uses qty).
  assert.eq(ids({ $or: [{ qty: { $lt: 20 } }, { price: 10 }] }), "1,7,8", "$or");
  // $and with two expressions on the same field, and its implicit form.
  assert.eq(ids({ $and: [{ price: { $ne: 1.99 } }, { price: { $exists: true } }] }), "3,4,5,8", "$and");
  assert.eq(ids({ price: { $ne: 1.99, $exists: true } }), "3,4,5,8", "implicit AND");
}
{
  // $and of two $in on an array field: "the price array must include at
  // least one value from each $in set".
  const inventory = tdb.and_prices;
  inventory.insertMany([
    { _id: 1, price: [7.99, 4.99] },
    { _id: 2, price: [3.99, 2.99] },
    { _id: 3, price: [1.99] },
  ]);
  const got = byId(inventory.find({ $and: [{ price: { $in: [7.99, 3.99] } }, { price: { $in: [4.99, 1.99] } }] }));
  assert.eq(got.map((d) => d._id).join(), "1", "$and of two $in");
}

// --- Bitwise query operators ----------------------------------------------
{
  const c = tdb.bits_collection;
  c.insertMany([
    { _id: 1, a: 54, binaryValueofA: "00110110" },
    { _id: 2, a: 20, binaryValueofA: "00010100" },
    { _id: 3, a: 20.0, binaryValueofA: "00010100" },
    { _id: 4, a: BinData(0, "Zg=="), binaryValueofA: "01100110" },
  ]);
  const ids = (q) => byId(c.find(q)).map((d) => d._id).join();
  assert.eq(ids({ a: { $bitsAllSet: [1, 5] } }), "1,4", "$bitsAllSet positions");
  assert.eq(ids({ a: { $bitsAllSet: 50 } }), "1", "$bitsAllSet integer bitmask");
  assert.eq(ids({ a: { $bitsAllSet: BinData(0, "MC==") } }), "1", "$bitsAllSet BinData bitmask");
  assert.eq(ids({ a: { $bitsAnySet: [1, 5] } }), "1,4", "$bitsAnySet positions");
  assert.eq(ids({ a: { $bitsAnySet: 35 } }), "1,4", "$bitsAnySet integer bitmask");
  assert.eq(ids({ a: { $bitsAnySet: BinData(0, "MA==") } }), "1,2,3,4", "$bitsAnySet BinData bitmask");
  assert.eq(ids({ a: { $bitsAllClear: [1, 5] } }), "2,3", "$bitsAllClear positions");
  assert.eq(ids({ a: { $bitsAllClear: 35 } }), "2,3", "$bitsAllClear integer bitmask");
  assert.eq(ids({ a: { $bitsAllClear: BinData(0, "IA==") } }), "2,3", "$bitsAllClear BinData bitmask");
  assert.eq(ids({ a: { $bitsAnyClear: [1, 5] } }), "2,3", "$bitsAnyClear positions");
  assert.eq(ids({ a: { $bitsAnyClear: 35 } }), "1,2,3,4", "$bitsAnyClear integer bitmask");
  assert.eq(ids({ a: { $bitsAnyClear: BinData(0, "MA==") } }), "2,3,4", "$bitsAnyClear BinData bitmask");
}

// --- $slice (projection) ---------------------------------------------------
{
  const posts = tdb.slice_posts;
  posts.insertMany([
    { _id: 1, title: "Bagels are not croissants.", comments: [{ comment: "0. true" }, { comment: "1. croissants aren't bagels." }] },
    {
      _id: 2,
      title: "Coffee please.",
      comments: [
        { comment: "0. fooey" },
        { comment: "1. tea please" },
        { comment: "2. iced coffee" },
        { comment: "3. cappuccino" },
        { comment: "4. whatever" },
      ],
    },
  ]);
  assert.docEq(
    byId(posts.find({}, { comments: { $slice: 3 } })),
    [
      { _id: 1, title: "Bagels are not croissants.", comments: [{ comment: "0. true" }, { comment: "1. croissants aren't bagels." }] },
      { _id: 2, title: "Coffee please.", comments: [{ comment: "0. fooey" }, { comment: "1. tea please" }, { comment: "2. iced coffee" }] },
    ],
    "$slice 3",
  );
  assert.docEq(
    byId(posts.find({}, { comments: { $slice: -3 } })),
    [
      { _id: 1, title: "Bagels are not croissants.", comments: [{ comment: "0. true" }, { comment: "1. croissants aren't bagels." }] },
      { _id: 2, title: "Coffee please.", comments: [{ comment: "2. iced coffee" }, { comment: "3. cappuccino" }, { comment: "4. whatever" }] },
    ],
    "$slice -3",
  );
  assert.docEq(
    byId(posts.find({}, { comments: { $slice: [1, 3] } })),
    [
      { _id: 1, title: "Bagels are not croissants.", comments: [{ comment: "1. croissants aren't bagels." }] },
      { _id: 2, title: "Coffee please.", comments: [{ comment: "1. tea please" }, { comment: "2. iced coffee" }, { comment: "3. cappuccino" }] },
    ],
    "$slice [1, 3]",
  );
  assert.docEq(
    byId(posts.find({}, { comments: { $slice: [-1, 3] } })),
    [
      { _id: 1, title: "Bagels are not croissants.", comments: [{ comment: "1. croissants aren't bagels." }] },
      { _id: 2, title: "Coffee please.", comments: [{ comment: "4. whatever" }] },
    ],
    "$slice [-1, 3]",
  );
}

// --- $elemMatch (projection) -----------------------------------------------
{
  const schools = tdb.elemMatch_schools;
  schools.insertMany([
    {
      _id: 1,
      zipcode: "63109",
      students: [
        { name: "john", school: 102, age: 10 },
        { name: "jess", school: 102, age: 11 },
        { name: "jeff", school: 108, age: 15 },
      ],
    },
    {
      _id: 2,
      zipcode: "63110",
      students: [
        { name: "ajax", school: 100, age: 7 },
        { name: "achilles", school: 100, age: 8 },
      ],
      athletics: ["swimming", "basketball", "football"],
    },
    {
      _id: 3,
      zipcode: "63109",
      students: [
        { name: "ajax", school: 100, age: 7 },
        { name: "achilles", school: 100, age: 8 },
      ],
      athletics: ["baseball", "basketball", "soccer"],
    },
    {
      _id: 4,
      zipcode: "63109",
      students: [
        { name: "barney", school: 102, age: 7 },
        { name: "ruth", school: 102, age: 16 },
      ],
    },
  ]);
  assert.docEq(
    byId(schools.find({ zipcode: "63109" }, { students: { $elemMatch: { school: 102 } } })),
    [
      { _id: 1, students: [{ name: "john", school: 102, age: 10 }] },
      { _id: 3 },
      { _id: 4, students: [{ name: "barney", school: 102, age: 7 }] },
    ],
    "$elemMatch projection",
  );
  assert.docEq(
    byId(schools.find({ zipcode: "63109" }, { students: { $elemMatch: { school: 102, age: { $gt: 10 } } } })),
    [
      { _id: 1, students: [{ name: "jess", school: 102, age: 11 }] },
      { _id: 3 },
      { _id: 4, students: [{ name: "ruth", school: 102, age: 16 }] },
    ],
    "$elemMatch projection with multiple fields",
  );
  assert.docEq(
    byId(schools.find({ zipcode: "63109" }, { athletics: { $elemMatch: { athletics: "basketball" } } })),
    [{ _id: 1 }, { _id: 3 }, { _id: 4 }],
    "$elemMatch projection of a field name on scalars",
  );
  assert.docEq(
    byId(schools.find({ zipcode: "63109" }, { athletics: { $elemMatch: { $eq: "basketball" } } })),
    [{ _id: 1 }, { _id: 3, athletics: ["basketball"] }, { _id: 4 }],
    "$elemMatch projection $eq on scalars",
  );
}

// --- $ (projection) --------------------------------------------------------
{
  const students = tdb.positional_students;
  students.insertMany([
    { _id: 1, semester: 1, grades: [70, 87, 90] },
    { _id: 2, semester: 1, grades: [90, 88, 92] },
    { _id: 3, semester: 1, grades: [85, 100, 90] },
    { _id: 4, semester: 2, grades: [79, 85, 80] },
    { _id: 5, semester: 2, grades: [88, 88, 92] },
    { _id: 6, semester: 2, grades: [95, 90, 96] },
  ]);
  assert.docEq(
    byId(students.find({ semester: 1, grades: { $gte: 85 } }, { "grades.$": 1 })),
    [
      { _id: 1, grades: [87] },
      { _id: 2, grades: [90] },
      { _id: 3, grades: [85] },
    ],
    "$ projection of values",
  );
  const students2 = tdb.positional_students_documents;
  students2.insertMany([
    {
      _id: 7,
      semester: 3,
      grades: [
        { grade: 80, mean: 75, std: 8 },
        { grade: 85, mean: 90, std: 5 },
        { grade: 90, mean: 85, std: 3 },
      ],
    },
    {
      _id: 8,
      semester: 3,
      grades: [
        { grade: 92, mean: 88, std: 8 },
        { grade: 78, mean: 90, std: 5 },
        { grade: 88, mean: 85, std: 3 },
      ],
    },
  ]);
  assert.docEq(
    byId(students2.find({ "grades.mean": { $gt: 70 } }, { "grades.$": 1 })),
    [
      { _id: 7, grades: [{ grade: 80, mean: 75, std: 8 }] },
      { _id: 8, grades: [{ grade: 92, mean: 88, std: 8 }] },
    ],
    "$ projection of documents",
  );
  // "returns the first document inside a grades array that has a mean of
  // greater than 70 and a grade of greater than 90".
  assert.docEq(
    byId(students2.find({ grades: { $elemMatch: { mean: { $gt: 70 }, grade: { $gt: 90 } } } }, { "grades.$": 1 })),
    [{ _id: 8, grades: [{ grade: 92, mean: 88, std: 8 }] }],
    "$ projection with $elemMatch",
  );
}

assert.commandWorked(tdb.dropDatabase());
