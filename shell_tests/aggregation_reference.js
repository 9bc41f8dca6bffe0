// The MongoDB manual's aggregation reference examples, pasted as written,
// with their documented results asserted:
//   $group      https://www.mongodb.com/docs/manual/reference/operator/aggregation/group/ (sales)
//   $bucket     https://www.mongodb.com/docs/manual/reference/operator/aggregation/bucket/ (artists)
//   $bucketAuto https://www.mongodb.com/docs/manual/reference/operator/aggregation/bucketAuto/ (artwork, granularity)
//   $setWindowFields https://www.mongodb.com/docs/manual/reference/operator/aggregation/setWindowFields/ (cakeSales)
//   $densify    https://www.mongodb.com/docs/manual/reference/operator/aggregation/densify/ (weather, coffee)
//   $fill       https://www.mongodb.com/docs/manual/reference/operator/aggregation/fill/ (dailySales, stock, restaurantReviews)
//   $merge      https://www.mongodb.com/docs/manual/reference/operator/aggregation/merge/ (salaries -> reporting.budgets)
//   $out        https://www.mongodb.com/docs/manual/reference/operator/aggregation/out/ (books -> authors)
//
// The order of $group output and of a collection scan is unspecified in
// MongoDB (the manual prints one possible order): those results are sorted
// before comparing. Everything else is exact.
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_aggregation_reference");
assert.commandWorked(tdb.dropDatabase());

function byId(docs) {
  return docs.sort((a, b) => (EJSON.stringify(a._id) < EJSON.stringify(b._id) ? -1 : 1));
}
function withoutId(docs) {
  return docs.map((d) => {
    const c = Object.assign({}, d);
    delete c._id;
    return c;
  });
}

// ---- $group (sales) ----
tdb.sales.insertMany([
  { "_id" : 1, "item" : "abc", "price" : NumberDecimal("10"), "quantity" : NumberInt("2"), "date" : ISODate("2014-03-01T08:00:00Z") },
  { "_id" : 2, "item" : "jkl", "price" : NumberDecimal("20"), "quantity" : NumberInt("1"), "date" : ISODate("2014-03-01T09:00:00Z") },
  { "_id" : 3, "item" : "xyz", "price" : NumberDecimal("5"), "quantity" : NumberInt( "10"), "date" : ISODate("2014-03-15T09:00:00Z") },
  { "_id" : 4, "item" : "xyz", "price" : NumberDecimal("5"), "quantity" :  NumberInt("20") , "date" : ISODate("2014-04-04T11:21:39.736Z") },
  { "_id" : 5, "item" : "abc", "price" : NumberDecimal("10"), "quantity" : NumberInt("10") , "date" : ISODate("2014-04-04T21:23:13.331Z") },
  { "_id" : 6, "item" : "def", "price" : NumberDecimal("7.5"), "quantity": NumberInt("5" ) , "date" : ISODate("2015-06-04T05:08:13Z") },
  { "_id" : 7, "item" : "def", "price" : NumberDecimal("7.5"), "quantity": NumberInt("10") , "date" : ISODate("2015-09-10T08:43:00Z") },
  { "_id" : 8, "item" : "abc", "price" : NumberDecimal("10"), "quantity" : NumberInt("5" ) , "date" : ISODate("2016-02-06T20:20:13Z") },
]);

assert.eq(tdb.sales.aggregate([{ $group: { _id: null, count: { $count: { } } } }]).toArray(), [{ "_id" : null, "count" : 8 }]);

assert.eq(
  byId(tdb.sales.aggregate([
    { $group : { _id : "$item", totalSaleAmount: { $sum: { $multiply: [ "$price", "$quantity" ] } } } },
    { $match: { "totalSaleAmount": { $gte: 100 } } }
  ]).toArray()),
  byId([
    { "_id" : "abc", "totalSaleAmount" : NumberDecimal("170") },
    { "_id" : "xyz", "totalSaleAmount" : NumberDecimal("150") },
    { "_id" : "def", "totalSaleAmount" : NumberDecimal("112.5") },
  ]), "$group with $match on the total");

assert.eq(
  tdb.sales.aggregate([
    { $match : { "date": { $gte: new ISODate("2014-01-01"), $lt: new ISODate("2015-01-01") } } },
    { $group : {
        _id : { $dateToString: { format: "%Y-%m-%d", date: "$date" } },
        totalSaleAmount: { $sum: { $multiply: [ "$price", "$quantity" ] } },
        averageQuantity: { $avg: "$quantity" },
        count: { $sum: 1 } } },
    { $sort : { totalSaleAmount: -1 } }
  ]).toArray(),
  [
    { "_id" : "2014-04-04", "totalSaleAmount" : NumberDecimal("200"), "averageQuantity" : 15, "count" : 2 },
    { "_id" : "2014-03-15", "totalSaleAmount" : NumberDecimal("50"), "averageQuantity" : 10, "count" : 1 },
    { "_id" : "2014-03-01", "totalSaleAmount" : NumberDecimal("40"), "averageQuantity" : 1.5, "count" : 2 },
  ], "$group by day");

assert.eq(
  tdb.sales.aggregate([
    { $group : { _id : null, totalSaleAmount: { $sum: { $multiply: [ "$price", "$quantity" ] } },
                 averageQuantity: { $avg: "$quantity" }, count: { $sum: 1 } } }
  ]).toArray(),
  [{ "_id" : null, "totalSaleAmount" : NumberDecimal("452.5"), "averageQuantity" : 7.875, "count" : 8 }],
  "$group by null");

// ---- $bucket (artists) ----
tdb.artists.insertMany([
  { "_id" : 1, "last_name" : "Bernard", "first_name" : "Emil", "year_born" : 1868, "year_died" : 1941, "nationality" : "France" },
  { "_id" : 2, "last_name" : "Rippl-Ronai", "first_name" : "Joszef", "year_born" : 1861, "year_died" : 1927, "nationality" : "Hungary" },
  { "_id" : 3, "last_name" : "Ostroumova", "first_name" : "Anna", "year_born" : 1871, "year_died" : 1955, "nationality" : "Russia" },
  { "_id" : 4, "last_name" : "Van Gogh", "first_name" : "Vincent", "year_born" : 1853, "year_died" : 1890, "nationality" : "Holland" },
  { "_id" : 5, "last_name" : "Maurer", "first_name" : "Alfred", "year_born" : 1868, "year_died" : 1932, "nationality" : "USA" },
  { "_id" : 6, "last_name" : "Munch", "first_name" : "Edvard", "year_born" : 1863, "year_died" : 1944, "nationality" : "Norway" },
  { "_id" : 7, "last_name" : "Redon", "first_name" : "Odilon", "year_born" : 1840, "year_died" : 1916, "nationality" : "France" },
  { "_id" : 8, "last_name" : "Diriks", "first_name" : "Edvard", "year_born" : 1855, "year_died" : 1930, "nationality" : "Norway" }
]);
const bucketed = tdb.artists.aggregate([
  { $sort: { _id: 1 } },
  { $bucket: { groupBy: "$year_born", boundaries: [ 1840, 1850, 1860, 1870, 1880 ], default: "Other",
      output: { "count": { $sum: 1 },
                "artists" : { $push: { "name": { $concat: [ "$first_name", " ", "$last_name"] }, "year_born": "$year_born" } } } } },
  { $match: { count: {$gt: 3} } }
]).toArray();
assert.eq(bucketed, [{ "_id" : 1860, "count" : 4, "artists" : [
  { "name" : "Emil Bernard", "year_born" : 1868 }, { "name" : "Joszef Rippl-Ronai", "year_born" : 1861 },
  { "name" : "Alfred Maurer", "year_born" : 1868 }, { "name" : "Edvard Munch", "year_born" : 1863 } ] }], "$bucket");

// ---- $bucketAuto (artwork) ----
tdb.artwork.insertMany([
  { "_id" : 1, "title" : "The Pillars of Society", "artist" : "Grosz", "year" : 1926, "price" : NumberDecimal("199.99"), "dimensions" : { "height" : 39, "width" : 21, "units" : "in" } },
  { "_id" : 2, "title" : "Melancholy III", "artist" : "Munch", "year" : 1902, "price" : NumberDecimal("280.00"), "dimensions" : { "height" : 49, "width" : 32, "units" : "in" } },
  { "_id" : 3, "title" : "Dancer", "artist" : "Miro", "year" : 1925, "price" : NumberDecimal("76.04"), "dimensions" : { "height" : 25, "width" : 20, "units" : "in" } },
  { "_id" : 4, "title" : "The Great Wave off Kanagawa", "artist" : "Hokusai", "price" : NumberDecimal("167.30"), "dimensions" : { "height" : 24, "width" : 36, "units" : "in" } },
  { "_id" : 5, "title" : "The Persistence of Memory", "artist" : "Dali", "year" : 1931, "price" : NumberDecimal("483.00"), "dimensions" : { "height" : 20, "width" : 24, "units" : "in" } },
  { "_id" : 6, "title" : "Composition VII", "artist" : "Kandinsky", "year" : 1913, "price" : NumberDecimal("385.00"), "dimensions" : { "height" : 30, "width" : 46, "units" : "in" } },
  { "_id" : 7, "title" : "The Scream", "artist" : "Munch", "price" : NumberDecimal("159.00"), "dimensions" : { "height" : 24, "width" : 18, "units" : "in" } },
  { "_id" : 8, "title" : "Blue Flower", "artist" : "O'Keefe", "year" : 1918, "price" : NumberDecimal("118.42"), "dimensions" : { "height" : 24, "width" : 20, "units" : "in" } }
]);
assert.eq(tdb.artwork.aggregate([{ $bucketAuto: { groupBy: "$price", buckets: 4 } }]).toArray(), [
  { "_id" : { "min" : NumberDecimal("76.04"), "max" : NumberDecimal("159.00") }, "count" : 2 },
  { "_id" : { "min" : NumberDecimal("159.00"), "max" : NumberDecimal("199.99") }, "count" : 2 },
  { "_id" : { "min" : NumberDecimal("199.99"), "max" : NumberDecimal("385.00") }, "count" : 2 },
  { "_id" : { "min" : NumberDecimal("385.00"), "max" : NumberDecimal("483.00") }, "count" : 2 }
], "$bucketAuto by price");

const things = [];
for (let i = 0; i < 100; ++i) things.push({ _id: i });
tdb.things.insertMany(things);
assert.eq(tdb.things.aggregate([{ $bucketAuto: { groupBy: "$_id", buckets: 5, granularity: "R20" } }]).toArray(), [
  { "_id" : { "min" : 0, "max" : 20 }, "count" : 20 },
  { "_id" : { "min" : 20, "max" : 40 }, "count" : 20 },
  { "_id" : { "min" : 40, "max" : 63 }, "count" : 23 },
  { "_id" : { "min" : 63, "max" : 90 }, "count" : 27 },
  { "_id" : { "min" : 90, "max" : 100 }, "count" : 10 }
], "$bucketAuto granularity R20");

// ---- $setWindowFields (cakeSales) ----
tdb.cakeSales.insertMany( [
   { _id: 0, type: "chocolate", orderDate: new Date("2020-05-18T14:10:30Z"), state: "CA", price: 13, quantity: 120 },
   { _id: 1, type: "chocolate", orderDate: new Date("2021-03-20T11:30:05Z"), state: "WA", price: 14, quantity: 140 },
   { _id: 2, type: "vanilla", orderDate: new Date("2021-01-11T06:31:15Z"), state: "CA", price: 12, quantity: 145 },
   { _id: 3, type: "vanilla", orderDate: new Date("2020-02-08T13:13:23Z"), state: "WA", price: 13, quantity: 104 },
   { _id: 4, type: "strawberry", orderDate: new Date("2019-05-18T16:09:01Z"), state: "CA", price: 41, quantity: 162 },
   { _id: 5, type: "strawberry", orderDate: new Date("2019-01-08T06:12:03Z"), state: "WA", price: 43, quantity: 134 }
] );
function field(docs, name) { return docs.map((d) => [d._id, d[name]]); }
assert.eq(field(tdb.cakeSales.aggregate( [
   { $setWindowFields: { partitionBy: "$state", sortBy: { orderDate: 1 },
      output: { cumulativeQuantityForState: { $sum: "$quantity", window: { documents: [ "unbounded", "current" ] } } } } }
] ).toArray(), "cumulativeQuantityForState"), [[4, 162], [0, 282], [2, 427], [5, 134], [3, 238], [1, 378]], "cumulative per state");
assert.eq(field(tdb.cakeSales.aggregate( [
   { $setWindowFields: { partitionBy: { $year: "$orderDate" }, sortBy: { orderDate: 1 },
      output: { averageQuantity: { $avg: "$quantity", window: { documents: [ -1, 0 ] } } } } }
] ).toArray(), "averageQuantity"), [[5, 134], [4, 148], [3, 104], [0, 112], [2, 145], [1, 142.5]], "moving average");
assert.eq(field(tdb.cakeSales.aggregate( [
   { $setWindowFields: { partitionBy: "$state", sortBy: { price: 1 },
      output: { quantityFromSimilarOrders: { $sum: "$quantity", window: { range: [ -10, 10 ] } } } } }
] ).toArray(), "quantityFromSimilarOrders"), [[2, 265], [0, 265], [4, 162], [3, 244], [1, 244], [5, 134]], "range window");
assert.eq(field(tdb.cakeSales.aggregate( [
   { $setWindowFields: { partitionBy: "$state", sortBy: { orderDate: 1 },
      output: { recentOrders: { $push: "$orderDate", window: { range: [ "unbounded", 10 ], unit: "month" } } } } }
] ).toArray(), "recentOrders").map(([id, dates]) => [id, dates.length]),
  [[4, 1], [0, 3], [2, 3], [5, 1], [3, 2], [1, 3]], "range window in months");
assert.eq(field(tdb.cakeSales.aggregate( [
   { $setWindowFields: { partitionBy: "$state", sortBy: { quantity: -1 }, output: { rankQuantityForState: { $rank: { } } } } }
] ).toArray(), "rankQuantityForState"), [[4, 1], [2, 2], [0, 3], [1, 1], [5, 2], [3, 3]], "$rank");
assert.eq(field(tdb.cakeSales.aggregate( [
   { $setWindowFields: { partitionBy: "$state", sortBy: { quantity: -1 },
      output: { shiftQuantityForState: { $shift: { output: "$quantity", by: 1, default: "Not available" } } } } }
] ).toArray(), "shiftQuantityForState"), [[4, 145], [2, 120], [0, "Not available"], [1, 134], [5, 104], [3, "Not available"]], "$shift");

// ---- $densify (weather, coffee) ----
tdb.weather.insertMany( [
   { "metadata": { "sensorId": 5578, "type": "temperature" }, "timestamp": ISODate("2021-05-18T00:00:00.000Z"), "temp": 12 },
   { "metadata": { "sensorId": 5578, "type": "temperature" }, "timestamp": ISODate("2021-05-18T04:00:00.000Z"), "temp": 11 },
   { "metadata": { "sensorId": 5578, "type": "temperature" }, "timestamp": ISODate("2021-05-18T08:00:00.000Z"), "temp": 11 },
   { "metadata": { "sensorId": 5578, "type": "temperature" }, "timestamp": ISODate("2021-05-18T12:00:00.000Z"), "temp": 12 }
] );
const dense = tdb.weather.aggregate( [
   { $densify: { field: "timestamp", range: { step: 1, unit: "hour",
        bounds:[ ISODate("2021-05-18T00:00:00.000Z"), ISODate("2021-05-18T08:00:00.000Z") ] } } }
] ).toArray();
assert.eq(dense.map((d) => [d.timestamp.toISOString().substr(11, 5), d.temp === undefined ? null : d.temp]), [
  ["00:00", 12], ["01:00", null], ["02:00", null], ["03:00", null], ["04:00", 11], ["05:00", null],
  ["06:00", null], ["07:00", null], ["08:00", 11], ["12:00", 12]], "hourly densify");

tdb.coffee.insertMany( [
   { "altitude": 600, "variety": "Arabica Typica", "score": 68.3 },
   { "altitude": 750, "variety": "Arabica Typica", "score": 69.5 },
   { "altitude": 950, "variety": "Arabica Typica", "score": 70.5 },
   { "altitude": 1250, "variety": "Gesha", "score": 88.15 },
   { "altitude": 1700, "variety": "Gesha", "score": 95.5, "price": 1029 }
] );
assert.eq(withoutId(tdb.coffee.aggregate( [
   { $densify: { field: "altitude", partitionByFields: [ "variety" ], range: { bounds: "full", step: 200 } } }
] ).toArray()), [
  { altitude: 600, variety: 'Arabica Typica', score: 68.3 },
  { altitude: 750, variety: 'Arabica Typica', score: 69.5 },
  { altitude: 800, variety: 'Arabica Typica' },
  { altitude: 950, variety: 'Arabica Typica', score: 70.5 },
  { altitude: 1000, variety: 'Arabica Typica' },
  { altitude: 1200, variety: 'Arabica Typica' },
  { altitude: 1400, variety: 'Arabica Typica' },
  { altitude: 1600, variety: 'Arabica Typica' },
  { altitude: 600, variety: 'Gesha' },
  { altitude: 800, variety: 'Gesha' },
  { altitude: 1000, variety: 'Gesha' },
  { altitude: 1200, variety: 'Gesha' },
  { altitude: 1250, variety: 'Gesha', score: 88.15 },
  { altitude: 1400, variety: 'Gesha' },
  { altitude: 1600, variety: 'Gesha' },
  { altitude: 1700, variety: 'Gesha', score: 95.5, price: 1029 }
], "densify partitions, full range");
assert.eq(withoutId(tdb.coffee.aggregate( [
   { $densify: { field: "altitude", partitionByFields: [ "variety" ], range: { bounds: "partition", step: 200 } } }
] ).toArray()), [
  { altitude: 600, variety: 'Arabica Typica', score: 68.3 },
  { altitude: 750, variety: 'Arabica Typica', score: 69.5 },
  { altitude: 800, variety: 'Arabica Typica' },
  { altitude: 950, variety: 'Arabica Typica', score: 70.5 },
  { altitude: 1250, variety: 'Gesha', score: 88.15 },
  { altitude: 1450, variety: 'Gesha' },
  { altitude: 1650, variety: 'Gesha' },
  { altitude: 1700, variety: 'Gesha', score: 95.5, price: 1029 }
], "densify partitions, own range");

// ---- $fill (dailySales, stock, restaurantReviews) ----
tdb.dailySales.insertMany( [
   { "date": ISODate("2022-02-02"), "bootsSold": 10, "sandalsSold": 20, "sneakersSold": 12 },
   { "date": ISODate("2022-02-03"), "bootsSold": 7, "sneakersSold": 18 },
   { "date": ISODate("2022-02-04"), "sneakersSold": 5 }
] );
assert.eq(withoutId(tdb.dailySales.aggregate( [
   { $sort: { date: 1 } },
   { $fill: { output: { "bootsSold": { value: 0 }, "sandalsSold": { value: 0 }, "sneakersSold": { value: 0 } } } }
] ).toArray()), [
  { date: ISODate("2022-02-02T00:00:00.000Z"), bootsSold: 10, sandalsSold: 20, sneakersSold: 12 },
  { date: ISODate("2022-02-03T00:00:00.000Z"), bootsSold: 7, sneakersSold: 18, sandalsSold: 0 },
  { date: ISODate("2022-02-04T00:00:00.000Z"), sneakersSold: 5, bootsSold: 0, sandalsSold: 0 }
], "$fill with values");

tdb.stock.insertMany( [
   { time: ISODate("2021-03-08T09:00:00.000Z"), price: 500 },
   { time: ISODate("2021-03-08T10:00:00.000Z"), },
   { time: ISODate("2021-03-08T11:00:00.000Z"), price: 515 },
   { time: ISODate("2021-03-08T12:00:00.000Z") },
   { time: ISODate("2021-03-08T13:00:00.000Z") },
   { time: ISODate("2021-03-08T14:00:00.000Z"), price: 485 }
] );
assert.eq(tdb.stock.aggregate( [
   { $fill: { sortBy: { time: 1 }, output: { price: { method: "linear" } } } }
] ).toArray().map((d) => d.price), [500, 507.5, 515, 505, 495, 485], "$fill linear");

tdb.restaurantReviews.insertMany( [
   { date: ISODate("2021-03-08"), score: 90 },
   { date: ISODate("2021-03-09"), score: 92 },
   { date: ISODate("2021-03-10") },
   { date: ISODate("2021-03-11") },
   { date: ISODate("2021-03-12"), score: 85 },
   { date: ISODate("2021-03-13") }
] );
assert.eq(tdb.restaurantReviews.aggregate( [
   { $fill: { sortBy: { date: 1 }, output: { score: { method: "locf" } } } }
] ).toArray().map((d) => d.score), [90, 92, 92, 92, 85, 85], "$fill locf");

// ---- $merge (salaries -> reporting.budgets) ----
const zoo = db.getSiblingDB("shell_aggregation_zoo");
const reporting = db.getSiblingDB("shell_aggregation_reporting");
assert.commandWorked(zoo.dropDatabase());
assert.commandWorked(reporting.dropDatabase());
zoo.salaries.insertMany([
   { "_id" : 1, employee: "Ant", dept: "A", salary: 100000, fiscal_year: 2017 },
   { "_id" : 2, employee: "Bee", dept: "A", salary: 120000, fiscal_year: 2017 },
   { "_id" : 3, employee: "Cat", dept: "Z", salary: 115000, fiscal_year: 2017 },
   { "_id" : 4, employee: "Ant", dept: "A", salary: 115000, fiscal_year: 2018 },
   { "_id" : 5, employee: "Bee", dept: "Z", salary: 145000, fiscal_year: 2018 },
   { "_id" : 6, employee: "Cat", dept: "Z", salary: 135000, fiscal_year: 2018 },
   { "_id" : 7, employee: "Gecko", dept: "A", salary: 100000, fiscal_year: 2018 },
   { "_id" : 8, employee: "Ant", dept: "A", salary: 125000, fiscal_year: 2019 },
   { "_id" : 9, employee: "Bee", dept: "Z", salary: 160000, fiscal_year: 2019 },
   { "_id" : 10, employee: "Cat", dept: "Z", salary: 150000, fiscal_year: 2019 }
]);
const mergeResult = zoo.salaries.aggregate( [
   { $group: { _id: { fiscal_year: "$fiscal_year", dept: "$dept" }, salaries: { $sum: "$salary" } } },
   { $merge : { into: { db: "shell_aggregation_reporting", coll: "budgets" }, on: "_id",  whenMatched: "replace", whenNotMatched: "insert" } }
] ).toArray();
assert.eq(mergeResult, [], "$merge returns no documents");
assert.eq(reporting.budgets.find().sort( { _id: 1 } ).toArray(), [
  { "_id" : { "fiscal_year" : 2017, "dept" : "A" }, "salaries" : 220000 },
  { "_id" : { "fiscal_year" : 2017, "dept" : "Z" }, "salaries" : 115000 },
  { "_id" : { "fiscal_year" : 2018, "dept" : "A" }, "salaries" : 215000 },
  { "_id" : { "fiscal_year" : 2018, "dept" : "Z" }, "salaries" : 280000 },
  { "_id" : { "fiscal_year" : 2019, "dept" : "A" }, "salaries" : 125000 },
  { "_id" : { "fiscal_year" : 2019, "dept" : "Z" }, "salaries" : 310000 }
], "initial materialized view");
zoo.salaries.insertMany([
   { "_id" : 11, employee: "Wren", dept: "Z", salary: 100000, fiscal_year: 2019 },
   { "_id" : 12, employee: "Zebra", dept: "A", salary: 150000, fiscal_year: 2019 },
   { "_id" : 13, employee: "headcount1", dept: "Z", salary: 120000, fiscal_year: 2020 },
   { "_id" : 14, employee: "headcount2", dept: "Z", salary: 120000, fiscal_year: 2020 }
]);
zoo.salaries.aggregate( [
   { $match : { fiscal_year: { $gte : 2019 } } },
   { $group: { _id: { fiscal_year: "$fiscal_year", dept: "$dept" }, salaries: { $sum: "$salary" } } },
   { $merge : { into: { db: "shell_aggregation_reporting", coll: "budgets" }, on: "_id",  whenMatched: "replace", whenNotMatched: "insert" } }
] );
assert.eq(reporting.budgets.find().sort( { _id: 1 } ).toArray(), [
  { "_id" : { "fiscal_year" : 2017, "dept" : "A" }, "salaries" : 220000 },
  { "_id" : { "fiscal_year" : 2017, "dept" : "Z" }, "salaries" : 115000 },
  { "_id" : { "fiscal_year" : 2018, "dept" : "A" }, "salaries" : 215000 },
  { "_id" : { "fiscal_year" : 2018, "dept" : "Z" }, "salaries" : 280000 },
  { "_id" : { "fiscal_year" : 2019, "dept" : "A" }, "salaries" : 275000 },
  { "_id" : { "fiscal_year" : 2019, "dept" : "Z" }, "salaries" : 410000 },
  { "_id" : { "fiscal_year" : 2020, "dept" : "Z" }, "salaries" : 240000 }
], "incremental update of the view");
assert.commandFailedWithCode(() => zoo.runCommand({ aggregate: "salaries", cursor: {},
  pipeline: [{ $merge: { into: "budgets", on: "employee" } }] }), 51183, "'on' needs a unique index");

// ---- $out (books -> authors) ----
tdb.books.insertMany([
   { "_id" : 8751, "title" : "The Banquet", "author" : "Dante", "copies" : 2 },
   { "_id" : 8752, "title" : "Divine Comedy", "author" : "Dante", "copies" : 1 },
   { "_id" : 8645, "title" : "Eclogues", "author" : "Dante", "copies" : 2 },
   { "_id" : 7000, "title" : "The Odyssey", "author" : "Homer", "copies" : 10 },
   { "_id" : 7020, "title" : "Iliad", "author" : "Homer", "copies" : 10 }
]);
tdb.books.aggregate( [ { $sort: { _id: 1 } }, { $group : { _id : "$author", books: { $push: "$title" } } }, { $out : "authors" } ] );
assert.eq(tdb.authors.find().sort({ _id: 1 }).toArray(), [
  { "_id" : "Dante", "books" : [ "Eclogues", "The Banquet", "Divine Comedy" ] },
  { "_id" : "Homer", "books" : [ "The Odyssey", "Iliad" ] }
], "$out");
assert.commandFailedWithCode(() => tdb.runCommand({ aggregate: "books", cursor: {},
  pipeline: [{ $out: "authors" }, { $match: {} }] }), 40601, "$out must be last");

assert.commandWorked(tdb.dropDatabase());
assert.commandWorked(zoo.dropDatabase());
assert.commandWorked(reporting.dropDatabase());
print("aggregation_reference.js: all assertions passed");
