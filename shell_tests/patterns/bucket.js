// The bucket pattern (reference: five-schema-patterns.txt, "Apply the bucket
// pattern"): first the article's example as written (hand-made hourly
// buckets), then the built-in version (patterns/README.md, "bucket"):
// MongoDB's time-series collections whose buckets keep the article's
// statistics, and a bucket view in the article's shape on which the
// article's daily-statistics aggregation runs as written.
load(__dirname + "/../lib/assert.js");

const tdb = db.getSiblingDB("shell_bucket");
assert.commandWorked(tdb.dropDatabase());
const reply = (cmd) => commandReply(tdb, cmd);  // lib/assert.js
const close = (a, b, what) => assert(Math.abs(a - b) < 1e-9, what + ": " + a + " vs " + b);

// --- The article, as written --------------------------------------------------
{
  const handMade = tdb.getSiblingDB("shell_bucket_article");
  assert.commandWorked(handMade.dropDatabase());
  handMade.sensorBuckets.insertOne({
    sensorId: "SENSOR-7834",
    bucketDate: ISODate("2026-04-15T10:00:00Z"),
    bucketEndDate: ISODate("2026-04-15T11:00:00Z"),
    measurements: [
      { ts: ISODate("2026-04-15T10:00:00Z"), temp: 22.5, humidity: 45.2 },
      { ts: ISODate("2026-04-15T10:00:10Z"), temp: 22.6, humidity: 45.1 },
      { ts: ISODate("2026-04-15T10:00:20Z"), temp: 22.7, humidity: 45.0 }
    ],
    stats: {
      count: 360,
      tempMin: 21.8, tempMax: 23.1, tempAvg: 22.6,
      humidityMin: 44.5, humidityMax: 46.2, humidityAvg: 45.3
    }
  });
  const daily = handMade.sensorBuckets.aggregate([
    { $match: { sensorId: "SENSOR-7834",
                bucketDate: { $gte: ISODate("2026-04-15T00:00:00Z"), $lt: ISODate("2026-04-16T00:00:00Z") } } },
    { $group: { _id: null, avgTemp: { $avg: "$stats.tempAvg" }, minTemp: { $min: "$stats.tempMin" },
                maxTemp: { $max: "$stats.tempMax" }, totalReadings: { $sum: "$stats.count" } } }
  ]).toArray();
  assert.eq(daily, [{ _id: null, avgTemp: 22.6, minTemp: 21.8, maxTemp: 23.1, totalReadings: 360 }]);
  assert.commandWorked(handMade.dropDatabase());
}

// --- Built in: a time-series collection with the article's statistics ----------
assert.commandWorked(tdb.createCollection("sensorReadings", {
  timeseries: { timeField: "ts", metaField: "sensorId", granularity: "seconds" },
  expireAfterSeconds: 2592000,
  bucket: { maxCount: 360, stats: ["temp", "humidity"], view: "sensorBuckets" }
}));

// listCollections: MongoDB's entry for a time-series collection, its buckets
// collection, and the bucket view.
{
  const infos = tdb.getCollectionInfos();
  const byName = Object.fromEntries(infos.map((i) => [i.name, i]));
  assert.eq(byName.sensorReadings.type, "timeseries");
  assert.eq(byName.sensorReadings.options.timeseries,
            { timeField: "ts", metaField: "sensorId", granularity: "seconds", bucketMaxSpanSeconds: 3600 });
  assert.eq(Number(byName.sensorReadings.options.expireAfterSeconds), 2592000);
  assert.eq(byName.sensorReadings.info.readOnly, false);
  assert.eq(byName["system.buckets.sensorReadings"].type, "collection");
  assert.eq(byName.sensorBuckets.type, "view");
  assert.eq(byName.sensorBuckets.options.viewOn, "system.buckets.sensorReadings");
}

// One day of 10-second readings for two sensors, inserted out of order (each
// hour's readings shuffled, the hours in reverse), one at a time and in batches.
// Yesterday (UTC): the article's day would be older than expireAfterSeconds
// (30 days) on today's clock, and the TTL monitor would remove it mid-test.
const day = Math.floor(Date.now() / 86400000) * 86400000 - 86400000;
const sensors = ["SENSOR-7834", "SENSOR-1111"];
const readings = [];
for (let s = 0; s < sensors.length; s++) {
  for (let i = 0; i < 8640; i++) {
    readings.push({ sensorId: sensors[s], ts: new Date(day + i * 10000),
                    temp: 20 + ((i * 7 + s) % 50) / 10, humidity: 40 + ((i * 3 + s) % 80) / 10 });
  }
}
{
  const byHour = {};
  for (const r of readings) {
    const key = r.sensorId + Math.floor((r.ts.getTime() - day) / 3600000);
    (byHour[key] = byHour[key] || []).push(r);
  }
  const hours = Object.keys(byHour).sort().reverse();
  let pending = [];
  for (const h of hours) {
    const rows = byHour[h];
    for (let i = rows.length - 1; i > 0; i--) {  // a fixed shuffle
      const j = (i * 7919) % (i + 1);
      [rows[i], rows[j]] = [rows[j], rows[i]];
    }
    pending = pending.concat(rows);
  }
  for (let i = 0; i < 5; i++) tdb.sensorReadings.insertOne(pending[i]);
  for (let i = 5; i < pending.length; i += 1000) {
    const res = tdb.sensorReadings.insertMany(pending.slice(i, i + 1000));
    assert.eq(Object.keys(res.insertedIds).length, Math.min(1000, pending.length - i));
  }
}

// Storage: one bucket per sensor and hour (360 readings each, maxCount 360),
// MongoDB's bucket shape; every reading exactly once.
{
  const buckets = tdb.system.buckets.sensorReadings.find().toArray();
  assert.eq(buckets.length, 48, "one bucket per sensor per hour");
  for (const b of buckets) {
    assert.eq(b.control.version, 1);
    assert.eq(Object.keys(b.data.ts).length, 360);
    assert.eq(b._id.getTimestamp().getTime(), b.control.min.ts.getTime(), "_id time = bucket start");
    assert.eq(b.control.min.ts.getTime() % 3600000, 0);
    assert(sensors.includes(b.meta));
  }
  assert.eq(tdb.sensorReadings.countDocuments({}), readings.length);
  assert.eq(tdb.sensorReadings.countDocuments({ sensorId: "SENSOR-7834" }), 8640);
  const ids = tdb.sensorReadings.distinct("_id");
  assert.eq(ids.length, readings.length, "no reading stored twice");
}

// collStats / $collStats of the collection: its buckets' sizes and a
// timeseries section.
{
  const stats = reply({ collStats: "sensorReadings" });
  assert.commandWorked(stats);
  assert.eq(stats.ns, "shell_bucket.sensorReadings");
  assert.eq(stats.timeseries.bucketsNs, "shell_bucket.system.buckets.sensorReadings");
  assert.eq(Number(stats.timeseries.bucketCount), 48);
  assert.eq(stats.count, undefined);
  // mongosh's stats() ($collStats) shows the same.
  const shellStats = tdb.sensorReadings.stats();
  assert.eq(shellStats.ns, "shell_bucket.sensorReadings");
  assert.eq(Number(shellStats.timeseries.bucketCount), 48);
}

// A measurement: timeField, metaField, then the other fields.
{
  const one = tdb.sensorReadings.findOne({ sensorId: "SENSOR-1111", ts: new Date(day + 3600000) });
  assert.eq(Object.keys(one).slice(0, 2), ["ts", "sensorId"]);
  assert.eq(one.temp, 20 + ((360 * 7 + 1) % 50) / 10);
}

// The article's daily statistics, as written, on the bucket view equal the
// same numbers computed from the raw readings.
{
  const daily = tdb.sensorBuckets.aggregate([
    { $match: { sensorId: "SENSOR-7834",
                bucketDate: { $gte: new Date(day), $lt: new Date(day + 86400000) } } },
    { $group: { _id: null, avgTemp: { $avg: "$stats.tempAvg" }, minTemp: { $min: "$stats.tempMin" },
                maxTemp: { $max: "$stats.tempMax" }, totalReadings: { $sum: "$stats.count" } } }
  ]).toArray();
  assert.eq(daily.length, 1);
  const raw = tdb.sensorReadings.aggregate([
    { $match: { sensorId: "SENSOR-7834",
                ts: { $gte: new Date(day), $lt: new Date(day + 86400000) } } },
    { $group: { _id: { $dateTrunc: { date: "$ts", unit: "hour" } }, hourAvg: { $avg: "$temp" },
                min: { $min: "$temp" }, max: { $max: "$temp" }, n: { $sum: 1 } } },
    { $group: { _id: null, avgTemp: { $avg: "$hourAvg" }, minTemp: { $min: "$min" },
                maxTemp: { $max: "$max" }, totalReadings: { $sum: "$n" } } }
  ]).toArray()[0];
  close(daily[0].avgTemp, raw.avgTemp, "avgTemp");
  assert.eq(daily[0].minTemp, raw.minTemp);
  assert.eq(daily[0].maxTemp, raw.maxTemp);
  assert.eq(Number(daily[0].totalReadings), 8640);
  assert.eq(raw.totalReadings, 8640);
  // The same from the readings kept in this script.
  const mine = readings.filter((r) => r.sensorId === "SENSOR-7834").map((r) => r.temp);
  assert.eq(daily[0].minTemp, Math.min(...mine));
  assert.eq(daily[0].maxTemp, Math.max(...mine));

  // One bucket in the article's shape, its statistics per hour.
  const b = tdb.sensorBuckets.findOne({ sensorId: "SENSOR-1111", bucketDate: new Date(day + 5 * 3600000) });
  assert.eq(b.bucketEndDate.getTime(), day + 6 * 3600000);
  assert.eq(b.measurements.length, 360);
  assert.eq(Object.keys(b.measurements[0]).sort(), ["humidity", "temp", "ts"]);
  const hour = readings.filter((r) => r.sensorId === "SENSOR-1111" &&
                                      r.ts.getTime() >= day + 5 * 3600000 && r.ts.getTime() < day + 6 * 3600000);
  assert.eq(Number(b.stats.count), 360);
  assert.eq(b.stats.humidityMin, Math.min(...hour.map((r) => r.humidity)));
  assert.eq(b.stats.humidityMax, Math.max(...hour.map((r) => r.humidity)));
  close(b.stats.tempAvg, hour.reduce((a, r) => a + r.temp, 0) / 360, "tempAvg");
  assert.eq(Object.keys(b), ["_id", "sensorId", "bucketDate", "bucketEndDate", "measurements", "stats"]);
}

// Bucket pruning: a filter on the meta and time fields reads only the buckets
// whose bounds can hold a match; explain shows buckets examined vs measurements.
{
  const filter = { sensorId: "SENSOR-7834",
                   ts: { $gte: new Date(day + 2 * 3600000), $lt: new Date(day + 4 * 3600000) } };
  assert.eq(tdb.sensorReadings.find(filter).itcount(), 720);
  const explain = tdb.sensorReadings.find(filter).explain("executionStats");
  let bucketsExamined = 0, unpacked = 0;
  for (const shard of Object.values(explain.shards)) {
    bucketsExamined += Number(shard.stages[0].$cursor.executionStats.totalDocsExamined);
    const unpack = shard.stages.find((s) => s.$_internalUnpackBucket);
    if (unpack) unpacked += Number(unpack.nReturned);
  }
  assert.eq(bucketsExamined, 2, "two hourly buckets of one sensor");
  assert.eq(unpacked, 720);
  assert.eq(explain.splitPipeline.shardsPart[0].$match.meta, "SENSOR-7834");
}

// Secondary indexes on the collection's fields live on the buckets' fields
// (meta, control.min/max), as MongoDB translates them; listIndexes shows them
// back on the collection's fields.
{
  assert.eq(tdb.sensorReadings.getIndexes().map((i) => [i.name, i.key]),
            [["sensorId_1_ts_1", { sensorId: 1, ts: 1 }]]);
  assert.eq(tdb.sensorReadings.createIndex({ ts: -1 }), "ts_-1");
  assert.eq(tdb.sensorReadings.createIndex({ temp: 1 }), "temp_1");
  const onBuckets = tdb.system.buckets.sensorReadings.getIndexes().map((i) => i.key);
  assert(onBuckets.some((k) => JSON.stringify(k) === JSON.stringify({ "control.max.ts": -1, "control.min.ts": -1 })),
         JSON.stringify(onBuckets));
  assert(onBuckets.some((k) => JSON.stringify(k) === JSON.stringify({ "control.min.temp": 1, "control.max.temp": 1 })),
         JSON.stringify(onBuckets));
  assert.eq(tdb.sensorReadings.getIndexes().map((i) => i.key),
            [{ sensorId: 1, ts: 1 }, { ts: -1 }, { temp: 1 }]);
  assert.eq(tdb.sensorReadings.find({ temp: { $gte: 24.9 } }).itcount(),
            readings.filter((r) => r.temp >= 24.9).length);
  assert.commandWorked(tdb.sensorReadings.dropIndex({ temp: 1 }));
  assert.commandWorked(tdb.sensorReadings.dropIndex("ts_-1"));
  assert.eq(tdb.sensorReadings.getIndexes().length, 1);
  assert.commandFailedWithCode(reply({ createIndexes: "sensorReadings",
                                       indexes: [{ key: { temp: 1 }, name: "u", unique: true }] }), 72);
}

// Refusals, with mongod's codes.
{
  const ts = { timeField: "ts", metaField: "m" };
  assert.commandFailedWithCode(reply({ create: "bad1", timeseries: { metaField: "m" } }), 40414);
  assert.commandFailedWithCode(reply({ create: "bad2", timeseries: { timeField: "ts", granularity: "days" } }), 2);
  assert.commandFailedWithCode(reply({ create: "bad3", timeseries: { timeField: "ts", bucketMaxSpanSeconds: 100 } }), 72);
  assert.commandFailedWithCode(reply({ create: "bad4", timeseries: { timeField: "ts", metaField: "ts" } }), 72);
  assert.commandFailedWithCode(reply({ create: "bad5", timeseries: { timeField: "a.b" } }), 72);
  assert.commandFailedWithCode(reply({ create: "bad6", timeseries: { timeField: "ts", granularity: "hours",
                                                                    bucketMaxSpanSeconds: 3600 } }), 72);
  assert.commandFailedWithCode(reply({ create: "bad7", timeseries: { timeField: 1 } }), 14);
  assert.commandFailedWithCode(reply({ create: "bad8", timeseries: Object.assign({ extra: 1 }, ts) }), 40415);
  assert.commandFailedWithCode(reply({ create: "bad9", expireAfterSeconds: 10 }), 72);
  assert.commandFailedWithCode(reply({ create: "bad10", timeseries: ts, bucket: { maxCount: 0 } }), 2);
  assert.commandFailedWithCode(reply({ create: "sensorReadings", timeseries: ts }), 48);
  assert.commandFailedWithCode(reply({ create: "bad11", timeseries: ts, validator: { a: 1 } }), 72);
  assert.commandFailedWithCode(reply({ create: "bad12", timeseries: ts, maxDocumentBytes: 4096 }), 72);
  // The same create again succeeds, as in MongoDB 7.
  assert.commandWorked(tdb.createCollection("sensorReadings", {
    timeseries: { timeField: "ts", metaField: "sensorId", granularity: "seconds" },
    expireAfterSeconds: 2592000,
    bucket: { maxCount: 360, stats: ["temp", "humidity"], view: "sensorBuckets" }
  }));
  assert.eq(tdb.getCollectionNames().filter((n) => n.startsWith("bad")), []);
  // Custom bucketing: span and rounding equal.
  assert.commandWorked(reply({ create: "custom", timeseries: { timeField: "t", bucketMaxSpanSeconds: 600,
                                                               bucketRoundingSeconds: 600 } }));
  assert.eq(tdb.getCollectionInfos({ name: "custom" })[0].options.timeseries,
            { timeField: "t", bucketRoundingSeconds: 600, bucketMaxSpanSeconds: 600 });
  // A measurement without a date in the time field.
  const res = reply({ insert: "sensorReadings", documents: [{ sensorId: "x", ts: 5 }, { sensorId: "x" }],
                      ordered: false });
  assert.eq(res.n, 0);
  assert.eq(res.writeErrors.map((e) => e.code), [2, 2]);
  assert.eq(res.writeErrors[0].errmsg, "'ts' must be present and contain a valid BSON UTC datetime value");
  // The bucket view is read-only.
  assert.commandFailedWithCode(reply({ insert: "sensorBuckets", documents: [{ a: 1 }] }), 166);
}

// Deletes and updates, exact whatever the filter: whole buckets go, partly
// matched ones are rebuilt with exact statistics; updated measurements are
// stored again where their time and meta value put them.
{
  const before = tdb.sensorReadings.countDocuments({});
  // deleteMany by meta: whole buckets.
  let res = tdb.sensorReadings.deleteMany({ sensorId: "SENSOR-1111" });
  assert.eq(res.deletedCount, 8640);
  assert.eq(tdb.system.buckets.sensorReadings.countDocuments({ meta: "SENSOR-1111" }), 0);
  // deleteMany by time range, cutting through buckets (10:30 to 12:15).
  res = tdb.sensorReadings.deleteMany({ ts: { $gte: new Date(day + 10.5 * 3600000),
                                              $lt: new Date(day + 12.25 * 3600000) } });
  assert.eq(res.deletedCount, 180 + 360 + 90);
  assert.eq(tdb.sensorReadings.countDocuments({}), before - 8640 - 630);
  const cut = tdb.sensorBuckets.findOne({ sensorId: "SENSOR-7834", bucketDate: new Date(day + 10 * 3600000) });
  assert.eq(Number(cut.stats.count), 180);
  const left = readings.filter((r) => r.sensorId === "SENSOR-7834" && r.ts.getTime() >= day + 10 * 3600000 &&
                                      r.ts.getTime() < day + 10.5 * 3600000);
  assert.eq(cut.stats.tempMax, Math.max(...left.map((r) => r.temp)));
  close(cut.stats.tempAvg, left.reduce((a, r) => a + r.temp, 0) / 180, "tempAvg after a partial delete");
  assert.eq(tdb.sensorBuckets.countDocuments({ bucketDate: new Date(day + 11 * 3600000) }), 0);
  // deleteOne: one measurement.
  res = tdb.sensorReadings.deleteOne({ sensorId: "SENSOR-7834", temp: { $gte: 0 } });
  assert.eq(res.deletedCount, 1);
  // updateMany of the metaField: the measurements move to the new value's buckets.
  res = tdb.sensorReadings.updateMany({ sensorId: "SENSOR-7834" }, { $set: { sensorId: "SENSOR-9999" } });
  assert.eq(res.matchedCount, before - 8640 - 630 - 1);
  assert.eq(res.modifiedCount, before - 8640 - 630 - 1);
  assert.eq(tdb.sensorReadings.countDocuments({ sensorId: "SENSOR-9999" }), before - 8640 - 630 - 1);
  assert.eq(tdb.sensorReadings.countDocuments({ sensorId: "SENSOR-7834" }), 0);
  assert.eq(tdb.system.buckets.sensorReadings.countDocuments({ meta: "SENSOR-9999" }), 23);
  // Any update: the buckets' statistics follow the measurements.
  const hour3 = { sensorId: "SENSOR-9999", ts: { $gte: new Date(day + 3 * 3600000), $lt: new Date(day + 4 * 3600000) } };
  res = tdb.sensorReadings.updateMany(hour3, { $inc: { temp: 100 } });
  assert.eq([res.matchedCount, res.modifiedCount], [360, 360]);
  const bumped = tdb.sensorBuckets.findOne({ sensorId: "SENSOR-9999", bucketDate: new Date(day + 3 * 3600000) });
  const hourTemps = readings.filter((r) => r.sensorId === "SENSOR-7834" && r.ts.getTime() >= day + 3 * 3600000 &&
                                           r.ts.getTime() < day + 4 * 3600000).map((r) => r.temp + 100);
  assert.eq(bumped.stats.tempMin, Math.min(...hourTemps));
  close(bumped.stats.tempAvg, hourTemps.reduce((a, t) => a + t, 0) / 360, "tempAvg after $inc");
  // updateOne changes one measurement; moving it in time moves it to its new window's bucket.
  res = tdb.sensorReadings.updateOne({ sensorId: "SENSOR-9999", ts: new Date(day + 3 * 3600000) },
                                     { $set: { ts: new Date(day + 20 * 3600000 + 5) } });
  assert.eq([res.matchedCount, res.modifiedCount], [1, 1]);
  assert.eq(tdb.sensorReadings.countDocuments(hour3), 359);
  assert.eq(tdb.sensorReadings.countDocuments({ ts: new Date(day + 20 * 3600000 + 5) }), 1);
  // An upsert inserts a measurement.
  res = tdb.sensorReadings.updateOne({ sensorId: "SENSOR-0042", ts: new Date(day) }, { $set: { temp: 7 } },
                                     { upsert: true });
  assert.eq(res.upsertedCount, 1);
  assert.eq(tdb.sensorReadings.findOne({ sensorId: "SENSOR-0042" }).temp, 7);
  // A time field that is no date is refused, and nothing changes.
  const refused = reply({ update: "sensorReadings", updates: [{ q: { sensorId: "SENSOR-0042" }, u: { $set: { ts: 5 } } }] });
  assert.eq(refused.writeErrors.map((e) => e.code), [2]);
  assert.eq(tdb.sensorReadings.countDocuments({ sensorId: "SENSOR-0042" }), 1);
  assert.eq(tdb.system.buckets.sensorReadings.validate().valid, true);
  // findAndModify: the first match in sort order, changed alone.
  const newest = tdb.sensorReadings.find({ sensorId: "SENSOR-9999" }).sort({ ts: -1 }).limit(1).next();
  const oldest = tdb.sensorReadings.find({ sensorId: "SENSOR-9999" }).sort({ ts: 1 }).limit(1).next();
  const latest = tdb.sensorReadings.findOneAndUpdate({ sensorId: "SENSOR-9999" }, { $set: { checked: true } },
                                                     { sort: { ts: -1 }, returnNewDocument: true });
  assert.eq(latest, Object.assign({}, newest, { checked: true }));
  assert.eq(latest.checked, true);
  assert.eq(tdb.sensorReadings.countDocuments({ checked: true }), 1);
  const earliest = tdb.sensorReadings.findOneAndDelete({ sensorId: "SENSOR-9999" }, { sort: { ts: 1 } });
  assert.eq(earliest, oldest);
  assert.eq(tdb.sensorReadings.countDocuments({ _id: oldest._id }), 0);
  const made = tdb.sensorReadings.findOneAndUpdate({ sensorId: "SENSOR-0043", ts: new Date(day) }, { $set: { temp: 8 } },
                                                   { upsert: true, returnNewDocument: true, projection: { _id: 0 } });
  assert.eq(made, { sensorId: "SENSOR-0043", ts: new Date(day), temp: 8 });
  assert.eq(tdb.system.buckets.sensorReadings.validate().valid, true);
}

// expireAfterSeconds: the TTL monitor removes whole buckets once their newest
// measurement has expired; a bucket with a recent measurement stays.
{
  assert.commandWorked(tdb.createCollection("shortLived", {
    timeseries: { timeField: "ts", metaField: "sensorId" }, expireAfterSeconds: 60 }));
  const now = Date.now();
  tdb.shortLived.insertMany([
    { sensorId: "old", ts: new Date(now - 3 * 3600 * 1000), temp: 1 },
    { sensorId: "old", ts: new Date(now - 3 * 3600 * 1000 + 1000), temp: 2 },
    { sensorId: "new", ts: new Date(now), temp: 3 },
  ]);
  assert.eq(tdb.system.buckets.shortLived.countDocuments({}), 2);
  const was = db.adminCommand({ setParameter: 1, ttlMonitorSleepSecs: 1 }).was;
  // The TTL monitor's thread may run late on a loaded machine: a generous deadline.
  let left = -1;
  const deadline = Date.now() + 60000;
  while (left !== 1 && Date.now() < deadline) {
    sleep(100);
    left = tdb.system.buckets.shortLived.countDocuments({});
  }
  assert.commandWorked(db.adminCommand({ setParameter: 1, ttlMonitorSleepSecs: was }));
  assert.eq(left, 1, "the expired bucket is gone, the recent one stays");
  assert.eq(tdb.shortLived.find({}, { _id: 0, sensorId: 1, temp: 1 }).toArray(), [{ sensorId: "new", temp: 3 }]);
}

// collMod: expireAfterSeconds changes (or "off" removes) the buckets' expiry;
// other time-series options are refused.
{
  assert.commandWorked(reply({ collMod: "shortLived", expireAfterSeconds: 7200 }));
  assert.eq(Number(tdb.getCollectionInfos({ name: "shortLived" })[0].options.expireAfterSeconds), 7200);
  const expiry = tdb.system.buckets.shortLived.getIndexes().filter((i) => i.expireAfterSeconds !== undefined);
  assert.eq(expiry.map((i) => Number(i.expireAfterSeconds)), [7200]);
  assert.commandWorked(reply({ collMod: "shortLived", expireAfterSeconds: "off" }));
  assert.eq(tdb.getCollectionInfos({ name: "shortLived" })[0].options.expireAfterSeconds, undefined);
  assert.eq(tdb.system.buckets.shortLived.getIndexes().filter((i) => i.expireAfterSeconds !== undefined), []);
  assert.commandFailedWithCode(reply({ collMod: "shortLived", expireAfterSeconds: -5 }), 72);
  assert.commandFailedWithCode(reply({ collMod: "shortLived", timeseries: { granularity: "minutes" } }), 238);
  assert.commandFailedWithCode(reply({ collMod: "shortLived", validator: {} }), 72);
}

// drop removes the collection, its buckets and its bucket view.
assert(tdb.sensorReadings.drop());
assert.eq(tdb.getCollectionNames().filter((n) => /sensor/i.test(n)), []);
