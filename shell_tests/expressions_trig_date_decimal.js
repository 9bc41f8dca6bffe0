// Small expression gaps of issue #19, against MongoDB 7's behaviour:
//  * trigonometric operators: int/long/double -> double, decimal -> decimal
//    (Intel's decimal library, as MongoDB), null/missing -> null, NaN kept,
//    out-of-domain inputs 50989 "cannot apply $acos to -2, value must be in
//    [-1,1]", non-numbers 28765 ($atan2: 51044/51045);
//  * $const is $literal;
//  * decimal results carry MongoDB's exponent ($log10 of 10 is 1; $round /
//    $trunc quantize, keeping trailing zeros) and $round's codes (51081
//    non-number, 51082 non-integral place, 51083 range, 51080 long overflow),
//    from MongoDB's jstests/aggregation/expressions/round_trunc.js;
//  * $dateToString / $dateToParts / $dateFromString: null or missing
//    optional arguments give null before the date is type-checked;
//  * formatless $dateFromString accepts what MongoDB's lenient parser
//    accepts (jstests/aggregation/expressions/date_from_string.js).
load(__dirname + "/lib/assert.js");

const tdb = db.getSiblingDB("shell_expressions_trig_date_decimal");
assert.commandWorked(tdb.dropDatabase());
assert.commandWorked(tdb.one.insertOne({ _id: 0 }));

function evaluate(expr) {
  const res = tdb.one.aggregate([{ $project: { _id: 0, r: expr } }]).toArray();
  return res[0].r;
}
function evaluateFails(expr, code) {
  return assert.commandFailedWithCode(
      commandReply(tdb, { aggregate: "one", pipeline: [{ $project: { r: expr } }], cursor: {} }),
      code, JSON.stringify(expr));
}
function close(actual, expected, msg) {
  assert.eq(typeof actual, "number", msg);
  assert(Math.abs(actual - expected) <= 1e-15 * Math.max(1, Math.abs(expected)),
         msg + ": " + actual + " vs " + expected);
}

// Trigonometry over doubles, ints and longs.
{
  const cases = [
    ["$sin", 1, Math.sin(1)], ["$cos", 1, Math.cos(1)], ["$tan", 1, Math.tan(1)],
    ["$asin", 0.5, Math.asin(0.5)], ["$acos", 0.5, Math.acos(0.5)], ["$atan", 2, Math.atan(2)],
    ["$sinh", 1, Math.sinh(1)], ["$cosh", 1, Math.cosh(1)], ["$tanh", 1, Math.tanh(1)],
    ["$asinh", 1, Math.asinh(1)], ["$acosh", 2, Math.acosh(2)], ["$atanh", 0.5, Math.atanh(0.5)],
    ["$degreesToRadians", 180, Math.PI], ["$radiansToDegrees", Math.PI, 180],
  ];
  for (const [op, x, want] of cases) {
    close(evaluate({ [op]: x }), want, op);
    close(evaluate({ [op]: NumberInt(Math.trunc(x) || 0) }), evaluate({ [op]: Math.trunc(x) || 0 }), op + " int");
    close(evaluate({ [op]: [x] }), want, op + " array form");
    assert.eq(evaluate({ [op]: null }), null, op + " null");
    assert.eq(evaluate({ [op]: "$missing" }), null, op + " missing");
    assert(Number.isNaN(evaluate({ [op]: NaN })), op + " NaN");
    evaluateFails({ [op]: "x" }, 28765);
    evaluateFails({ [op]: [1, 2] }, 16020);
  }
  close(evaluate({ $acosh: NumberLong(1) }), 0, "$acosh long");
  assert.eq(evaluate({ $atanh: 1 }), Infinity);
  assert.eq(evaluate({ $atanh: -1 }), -Infinity);
  assert.eq(evaluate({ $sinh: Infinity }), Infinity);
  close(evaluate({ $atan2: [1, 1] }), Math.atan2(1, 1), "$atan2");
  close(evaluate({ $atan2: [NumberInt(1), NumberLong(-1)] }), Math.atan2(1, -1), "$atan2 ints");
  assert.eq(evaluate({ $atan2: [null, 1] }), null);
  assert.eq(evaluate({ $atan2: [1, "$missing"] }), null);
  evaluateFails({ $atan2: ["a", null] }, 51044);
  evaluateFails({ $atan2: [1, "a"] }, 51045);
  evaluateFails({ $atan2: [1] }, 16020);
}

// Out of domain: MongoDB's code and message.
{
  const check = (expr, message) => {
    const res = evaluateFails(expr, 50989);
    assert.eq(res.errmsg, message);
  };
  check({ $acos: -2 }, "cannot apply $acos to -2, value must be in [-1,1]");
  check({ $asin: 1.5 }, "cannot apply $asin to 1.5, value must be in [-1,1]");
  check({ $atanh: NumberInt(2) }, "cannot apply $atanh to 2, value must be in [-1,1]");
  check({ $acosh: 0.5 }, "cannot apply $acosh to 0.5, value must be in [1,inf]");
  check({ $sin: Infinity }, "cannot apply $sin to inf, value must be in (-inf,inf)");
  check({ $cos: -Infinity }, "cannot apply $cos to -inf, value must be in (-inf,inf)");
  check({ $tan: NumberDecimal("Infinity") }, "cannot apply $tan to Infinity, value must be in (-inf,inf)");
  check({ $acos: NumberDecimal("1.5") }, "cannot apply $acos to 1.5, value must be in [-1,1]");
  // In range at the bounds.
  assert.eq(evaluate({ $acos: 1 }), 0);
  assert.eq(evaluate({ $acosh: 1 }), 0);
}

// Decimal trigonometry stays decimal, computed as MongoDB's Decimal128 does.
{
  assert.eq(evaluate({ $sin: NumberDecimal("10") }), NumberDecimal("-0.5440211108893698134047476618513773"));
  // The library's (and so MongoDB's) exponents: cos(0) has 33 decimals.
  assert.eq(evaluate({ $cos: NumberDecimal("0") }), NumberDecimal("1.000000000000000000000000000000000"));
  assert.eq(evaluate({ $asin: NumberDecimal("1") }).toString().substring(0, 30),
            NumberDecimal("1.570796326794896619231321691639751").toString().substring(0, 30));
  assert.eq(evaluate({ $atan2: [NumberDecimal("0"), 1] }), NumberDecimal("0E-6176"));
  const pi = evaluate({ $degreesToRadians: NumberDecimal("180") });
  assert.eq(pi.toString().substring(0, 32), "3.141592653589793238462643383279", pi.toString());
  assert.eq(Number(evaluate({ $radiansToDegrees: NumberDecimal("0") }).toString()), 0);
  const nan = evaluate({ $acos: NumberDecimal("NaN") });
  assert.eq(nan, NumberDecimal("NaN"));
}

// $const is $literal.
{
  assert.eq(evaluate({ $const: "$notAPath" }), "$notAPath");
  assert.eq(evaluate({ $const: { $add: [1, 2] } }), { $add: [1, 2] });
  assert.eq(evaluate({ $literal: [1, "$x"] }), [1, "$x"]);
}

// Decimal exponents as MongoDB computes them.
{
  assert.eq(evaluate({ $log10: NumberDecimal("10") }), NumberDecimal("1"));
  assert.eq(evaluate({ $log10: NumberDecimal("1000") }), NumberDecimal("3"));
  assert.eq(evaluate({ $log: [NumberDecimal("8"), 2] }), NumberDecimal("3"));
  assert.eq(evaluate({ $ln: NumberDecimal("1") }), NumberDecimal("0"));
  assert.eq(evaluate({ $sqrt: NumberDecimal("4") }), NumberDecimal("2"));
  assert.eq(evaluate({ $exp: NumberDecimal("0") }), NumberDecimal("1"));
  assert.eq(evaluate({ $pow: [NumberDecimal("2"), 10] }), NumberDecimal("1024"));
  // round_trunc.js
  assert.eq(evaluate({ $trunc: NumberDecimal("-1.6") }), NumberDecimal("-1"));
  assert.eq(evaluate({ $round: NumberDecimal("-1.6") }), NumberDecimal("-2"));
  assert.eq(evaluate({ $trunc: [NumberDecimal("1.298"), 1] }), NumberDecimal("1.2"));
  assert.eq(evaluate({ $trunc: [NumberDecimal("23.298"), -1] }), NumberDecimal("2E+1"));
  assert.eq(evaluate({ $round: [NumberDecimal("23.298"), -1] }), NumberDecimal("2E+1"));
  assert.eq(evaluate({ $round: [NumberDecimal("1.298"), 1] }), NumberDecimal("1.3"));
  assert.eq(evaluate({ $trunc: [NumberDecimal("1.298912343250054252245154325"), NumberLong("20")] }),
            NumberDecimal("1.29891234325005425224"));
  assert.eq(evaluate({ $round: [NumberDecimal("1.298912343250054252245154325"), NumberLong("20")] }),
            NumberDecimal("1.29891234325005425225"));
  assert.eq(evaluate({ $trunc: [NumberDecimal("1.298"), NumberDecimal("100")] }),
            NumberDecimal("1.298000000000000000000000000000000"));
  assert.eq(evaluate({ $round: [NumberDecimal("1.5"), 3] }), NumberDecimal("1.500"));
  assert.eq(evaluate({ $round: [NumberDecimal("Infinity"), 0] }), NumberDecimal("Infinity"));
  assert.eq(evaluate({ $round: [NumberDecimal("NaN"), 0] }), NumberDecimal("NaN"));
  assert.eq(evaluate({ $round: [NumberInt("2147483647"), -1] }), NumberLong("2147483650"));
  assert.eq(evaluate({ $round: [1.298, 100] }), 1.298);
  evaluateFails({ $round: [NumberLong("9223372036854775806"), -1] }, 51080);
  evaluateFails({ $round: "string" }, 51081);
  evaluateFails({ $trunc: "string" }, 51081);
  evaluateFails({ $round: [1, NumberDecimal("1.4")] }, 51082);
  evaluateFails({ $trunc: [1, 10.5] }, 51082);
  evaluateFails({ $round: [1, 101] }, 51083);
  evaluateFails({ $trunc: [1, NumberLong("-21")] }, 51083);
  evaluateFails({ $round: [1, 2, 3] }, 28667);
}

// Date expressions: null or missing optional arguments.
{
  const d = ISODate("2017-06-19T15:13:25.713Z");
  assert.commandWorked(tdb.dates.insertMany([{ _id: 1, d: d, n: null }]));
  const run = (expr) => tdb.dates.aggregate([{ $project: { _id: 0, r: expr } }]).toArray()[0].r;
  const fails = (expr, code) => assert.commandFailedWithCode(
      commandReply(tdb, { aggregate: "dates", pipeline: [{ $project: { r: expr } }], cursor: {} }), code);
  // A null or missing timezone/format gives null even when the date is not a date.
  assert.eq(run({ $dateToString: { date: "not a date", timezone: "$n" } }), null);
  assert.eq(run({ $dateToString: { date: "not a date", timezone: "$missing" } }), null);
  assert.eq(run({ $dateToString: { date: 5, format: "$missing" } }), null);
  assert.eq(run({ $dateToString: { date: "$d", format: null } }), null);
  // ... but a null date gives onNull first.
  assert.eq(run({ $dateToString: { date: "$n", format: null, onNull: "none" } }), "none");
  assert.eq(run({ $dateToString: { date: "$missing", timezone: "$n", onNull: "none" } }), "none");
  fails({ $dateToString: { date: "not a date" } }, 16006);
  fails({ $dateToString: { date: "$d", format: 5 } }, 18533);
  // A non-null format is validated and the timezone resolved before a null
  // date gives onNull (ExpressionDateToString::evaluate).
  fails({ $dateToString: { date: "$n", format: "%Q", onNull: "none" } }, 18536);
  fails({ $dateToString: { date: "$n", format: "%Y%", onNull: "none" } }, 18535);
  fails({ $dateToString: { date: "$n", timezone: "Not/AZone", onNull: "none" } }, 40485);
  fails({ $dateFromString: { dateString: "$n", format: "%Q" } }, 18536);
  assert.eq(run({ $dateToParts: { date: "not a date", timezone: null } }), null);
  assert.eq(run({ $dateToParts: { date: "not a date", iso8601: "$missing" } }), null);
  assert.eq(run({ $dateToParts: { date: "$missing", iso8601: true } }), null);
  fails({ $dateToParts: { date: "not a date" } }, 16006);
  fails({ $dateToParts: { date: "$d", iso8601: 1 } }, 40521);
  assert.eq(run({ $dateToParts: { date: "$d", iso8601: false } }).year, 2017);
  // $dateFromString checks a non-null dateString's type first (241, which
  // onError catches), then gives null for a null timezone or format.
  fails({ $dateFromString: { dateString: 5, timezone: "$missing" } }, 241);
  fails({ $dateFromString: { dateString: 5, format: "$n" } }, 241);
  assert.eq(run({ $dateFromString: { dateString: 5, format: "$n", onError: "e" } }), "e");
  assert.eq(run({ $dateFromString: { dateString: "2017-07-04", timezone: "$missing" } }), null);
  assert.eq(run({ $dateFromString: { dateString: "2017-07-04", format: "$n" } }), null);
  assert.eq(run({ $dateFromString: { dateString: "$n", format: "$n", onNull: "x" } }), "x");
  fails({ $dateFromString: { dateString: 5 } }, 241);
  // An invalid timezone fails even for a null dateString, as MongoDB.
  fails({ $dateFromString: { dateString: null, timezone: "Not/AZone" } }, 40485);
}

// Formatless $dateFromString: MongoDB's lenient parser (date_from_string.js).
{
  const cases = [
    ["2017-07-04T11:56:02Z", "2017-07-04T11:56:02Z"],
    ["2017-07-04T11:56:02.813Z", "2017-07-04T11:56:02.813Z"],
    ["2017-07-04T11:56:02.81Z", "2017-07-04T11:56:02.810Z"],
    ["2017-07-04T11:56.02", "2017-07-04T11:56:02Z"],
    ["2017-07-04T11:56.02.813", "2017-07-04T11:56:02.813Z"],
    ["2017-07-06", "2017-07-06T00:00:00Z"],
    ["2017-07-06 11:36", "2017-07-06T11:36:00Z"],
    ["2017-07-06 11:36:54", "2017-07-06T11:36:54Z"],
    ["2017-07-14T12:02:44.771 GMT", "2017-07-14T12:02:44.771Z"],
    ["2017-07-14T12:02:44.771 GMT+02", "2017-07-14T10:02:44.771Z"],
    ["2017-07-14T12:02:44.771 GMT+02:00", "2017-07-14T10:02:44.771Z"],
    ["2017-07-14T12:02:44.771+03", "2017-07-14T09:02:44.771Z"],
    ["2017-07-14T12:02:44.771+0330", "2017-07-14T08:32:44.771Z"],
    ["2017-07-14T12:02:44.771+03:30", "2017-07-14T08:32:44.771Z"],
    ["2017-07-14T12:02:44.771 UTC", "2017-07-14T12:02:44.771Z"],
    ["2017-07-14T12:02:44.771 CEST", "2017-07-14T10:02:44.771Z"],
    ["2017-07-14T12:02:44.771 EST", "2017-07-14T17:02:44.771Z"],
    ["2017-07-14T12:02:44.771 PDT", "2017-07-14T19:02:44.771Z"],
    ["2017-07-14T12:02:44.771 A", "2017-07-14T11:02:44.771Z"],
    ["2017-07-14T12:02:44.771 L", "2017-07-14T01:02:44.771Z"],
    ["2017-07-14T12:02:44.771 P", "2017-07-14T15:02:44.771Z"],
    ["2017-07-14T12:02:44.771 Z", "2017-07-14T12:02:44.771Z"],
    ["July 4th, 2017", "2017-07-04T00:00:00Z"],
    ["July 4th, 2017 12:39:30 BST", "2017-07-04T11:39:30Z"],
    ["July 4th, 2017 11am", "2017-07-04T11:00:00Z"],
    ["July 4th, 2017 12pm", "2017-07-04T12:00:00Z"],
    ["7/4/17", "2017-07-04T00:00:00Z"],
    ["04-07-2017", "2017-07-04T00:00:00Z"],
    ["2017-Jul-04 noon", "2017-07-04T12:00:00Z"],
    ["2017-07-04 12:48:07 GMT+0545", "2017-07-04T07:03:07Z"],
    ["2017-07-04 12:48:07 GMT-0200", "2017-07-04T14:48:07Z"],
    ["2017-07-04 11:56:02 +0100", "2017-07-04T10:56:02Z"],
    ["4 July 2017", "2017-07-04T00:00:00Z"],
  ];
  for (const [input, want] of cases) {
    assert.eq(evaluate({ $dateFromString: { dateString: input } }), ISODate(want), input);
  }
  assert.eq(evaluate({ $dateFromString: { dateString: "2017-07-04T11:56.02", timezone: "Europe/London" } }),
            ISODate("2017-07-04T10:56:02Z"));
  assert.eq(evaluate({ $toDate: "July 4th, 2017" }), ISODate("2017-07-04T00:00:00Z"));
  const incomplete = evaluateFails({ $dateFromString: { dateString: "July 4th" } }, 241);
  assert(incomplete.errmsg.indexOf("an incomplete date/time string has been found") >= 0, incomplete.errmsg);
  const timeOnly = evaluateFails({ $dateFromString: { dateString: "12:50:53" } }, 241);
  assert(timeOnly.errmsg.indexOf("an incomplete date/time string has been found") >= 0, timeOnly.errmsg);
  for (const broken of ["2017, 12:50:53", "60.Monday1770/06:59", "2017-07-12T22:23:55 Europe/Amsterdam"]) {
    const res = evaluateFails({ $dateFromString: { dateString: broken } }, 241);
    assert(res.errmsg.indexOf("Error parsing date string") >= 0, res.errmsg);
  }
  evaluateFails({ $dateFromString: { dateString: "2017-07-12T22:23:55 GMT+02:00", timezone: "Europe/Amsterdam" } }, 241);
  evaluateFails({ $dateFromString: { dateString: "2017-07-12T22:23:55Z", timezone: "Europe/Amsterdam" } }, 241);
  assert.eq(evaluate({ $dateFromString: { dateString: "July 4th", onError: "bad" } }), "bad");
}

print("expressions_trig_date_decimal: ok");
