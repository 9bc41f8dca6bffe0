// Table-driven specification of updates: each row is an update, a
// document, and MongoDB's result (manual pages of each update operator,
// jstests/core/query/update/*). Documents compare byte for byte, so field
// order and numeric types are part of the specification.

#include "engine/update/update_driver.h"

#include <gtest/gtest.h>

#include "engine/bson/bson_doc.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::update {
namespace {

using bson::BsonDoc;
using testing_json::Json;

struct UpdateCase {
  const char* update;
  const char* doc;
  const char* expected;
  bool modified;
};

void PrintTo(const UpdateCase& c, std::ostream* os) { *os << c.update << " on " << c.doc; }

class UpdateTest : public testing::TestWithParam<UpdateCase> {};

TEST_P(UpdateTest, AppliesLikeMongoDB) {
  const UpdateCase& c = GetParam();
  BsonDoc update = Json(c.update);
  auto driver = UpdateDriver::Parse(update.get());
  ASSERT_TRUE(driver.ok()) << driver.status().ToString();
  BsonDoc doc = Json(c.doc);
  auto result = driver.value().Apply(doc.get(), /*is_upsert_insert=*/false);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  BsonDoc expected = Json(c.expected);
  EXPECT_TRUE(bson_equal(result.value().doc.get(), expected.get()))
      << "got " << result.value().doc.ToJson() << " want " << expected.ToJson();
  EXPECT_EQ(result.value().modified, c.modified);
}

INSTANTIATE_TEST_SUITE_P(Set, UpdateTest, testing::Values(
    UpdateCase{R"({"%set": {"a": 2}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 2})", true},
    UpdateCase{R"({"%set": {"a": 1}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1})", false},
    UpdateCase{R"({"%set": {"a": 1.0}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1.0})", true},
    UpdateCase{R"({"%set": {"b": 1}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1, "b": 1})", true},
    // New fields are appended in field-name order, existing ones stay put.
    UpdateCase{R"({"%set": {"z": 1, "c": 2, "a": 3}})", R"({"_id": 1, "a": 0})",
               R"({"_id": 1, "a": 3, "c": 2, "z": 1})", true},
    UpdateCase{R"({"%set": {"a.b": 1}})", R"({"_id": 1})", R"({"_id": 1, "a": {"b": 1}})", true},
    UpdateCase{R"({"%set": {"a.b.c": 1}})", R"({"_id": 1, "a": {"x": 0}})",
               R"({"_id": 1, "a": {"x": 0, "b": {"c": 1}}})", true},
    UpdateCase{R"({"%set": {"a.0": 9}})", R"({"_id": 1, "a": [1, 2]})", R"({"_id": 1, "a": [9, 2]})", true},
    UpdateCase{R"({"%set": {"a.3": 9}})", R"({"_id": 1, "a": [1]})",
               R"({"_id": 1, "a": [1, null, null, 9]})", true},
    UpdateCase{R"({"%set": {"a.1.b": 9}})", R"({"_id": 1, "a": [{"b": 1}, {"b": 2}]})",
               R"({"_id": 1, "a": [{"b": 1}, {"b": 9}]})", true},
    UpdateCase{R"({"%set": {"a.0": 9}})", R"({"_id": 1})", R"({"_id": 1, "a": {"0": 9}})", true},
    UpdateCase{R"({"%set": {"a": {"x": [1, {"y": 2}]}}})", R"({"_id": 1, "a": 1})",
               R"({"_id": 1, "a": {"x": [1, {"y": 2}]}})", true},
    UpdateCase{R"({"%set": {"_id": 1}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1})", false},
    UpdateCase{R"({"%set": {"a": 1}, "%unset": {"b": ""}})", R"({"_id": 1, "b": 2})",
               R"({"_id": 1, "a": 1})", true}));

INSTANTIATE_TEST_SUITE_P(SetOnInsertWithoutUpsert, UpdateTest, testing::Values(
    UpdateCase{R"({"%setOnInsert": {"a": 2}})", R"({"_id": 1})", R"({"_id": 1})", false},
    UpdateCase{R"({"%setOnInsert": {"a.b": 2}, "%set": {"c": 1}})", R"({"_id": 1})",
               R"({"_id": 1, "c": 1})", true}));

INSTANTIATE_TEST_SUITE_P(Unset, UpdateTest, testing::Values(
    UpdateCase{R"({"%unset": {"a": ""}})", R"({"_id": 1, "a": 1, "b": 2})", R"({"_id": 1, "b": 2})", true},
    UpdateCase{R"({"%unset": {"x": 1}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1})", false},
    UpdateCase{R"({"%unset": {"a.b": 1}})", R"({"_id": 1, "a": {"b": 1, "c": 2}})",
               R"({"_id": 1, "a": {"c": 2}})", true},
    UpdateCase{R"({"%unset": {"a.b": 1}})", R"({"_id": 1, "a": 5})", R"({"_id": 1, "a": 5})", false},
    UpdateCase{R"({"%unset": {"a.1": 1}})", R"({"_id": 1, "a": [1, 2, 3]})",
               R"({"_id": 1, "a": [1, null, 3]})", true},
    UpdateCase{R"({"%unset": {"a.b": 1}})", R"({"_id": 1, "a": [{"b": 1}]})",
               R"({"_id": 1, "a": [{"b": 1}]})", false}));

INSTANTIATE_TEST_SUITE_P(Inc, UpdateTest, testing::Values(
    UpdateCase{R"({"%inc": {"a": 1}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 2})", true},
    UpdateCase{R"({"%inc": {"a": -2}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": -1})", true},
    UpdateCase{R"({"%inc": {"a": 1}})", R"({"_id": 1})", R"({"_id": 1, "a": 1})", true},
    UpdateCase{R"({"%inc": {"a.b": 5}})", R"({"_id": 1})", R"({"_id": 1, "a": {"b": 5}})", true},
    UpdateCase{R"({"%inc": {"a": 0}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1})", false},
    UpdateCase{R"({"%inc": {"a": 0.0}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1.0})", true},
    UpdateCase{R"({"%inc": {"a": 1.5}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 2.5})", true},
    UpdateCase{R"({"%inc": {"a": 1}})", R"({"_id": 1, "a": 2147483647})",
               R"({"_id": 1, "a": {"$numberLong": "2147483648"}})", true},
    UpdateCase{R"({"%inc": {"a": -1}})", R"({"_id": 1, "a": -2147483648})",
               R"({"_id": 1, "a": {"$numberLong": "-2147483649"}})", true},
    UpdateCase{R"({"%inc": {"a": {"$numberLong": "1"}}})", R"({"_id": 1, "a": 1})",
               R"({"_id": 1, "a": {"$numberLong": "2"}})", true},
    UpdateCase{R"({"%inc": {"a": {"$numberDecimal": "0.1"}}})", R"({"_id": 1, "a": 1})",
               R"({"_id": 1, "a": {"$numberDecimal": "1.1"}})", true},
    UpdateCase{R"({"%inc": {"a": 1}})", R"({"_id": 1, "a": {"$numberDecimal": "2.5"}})",
               R"({"_id": 1, "a": {"$numberDecimal": "3.5"}})", true},
    UpdateCase{R"({"%inc": {"a": {"$numberDecimal": "1"}}})", R"({"_id": 1, "a": 0.1})",
               R"({"_id": 1, "a": {"$numberDecimal": "1.100000000000000"}})", true},
    UpdateCase{R"({"%inc": {"a.2": 1}})", R"({"_id": 1, "a": [1, 1, 1]})",
               R"({"_id": 1, "a": [1, 1, 2]})", true},
    UpdateCase{R"({"%inc": {"quantity": -2, "metrics.orders": 1}})",
               R"({"_id": 1, "sku": "abc123", "quantity": 10, "metrics": {"orders": 2, "ratings": 3.5}})",
               R"({"_id": 1, "sku": "abc123", "quantity": 8, "metrics": {"orders": 3, "ratings": 3.5}})", true}));

INSTANTIATE_TEST_SUITE_P(Mul, UpdateTest, testing::Values(
    UpdateCase{R"({"%mul": {"a": 2}})", R"({"_id": 1, "a": 3})", R"({"_id": 1, "a": 6})", true},
    UpdateCase{R"({"%mul": {"a": 1.25}})", R"({"_id": 1, "a": 10.0})", R"({"_id": 1, "a": 12.5})", true},
    UpdateCase{R"({"%mul": {"a": 2}})", R"({"_id": 1})", R"({"_id": 1, "a": 0})", true},
    UpdateCase{R"({"%mul": {"a": {"$numberLong": "2"}}})", R"({"_id": 1})",
               R"({"_id": 1, "a": {"$numberLong": "0"}})", true},
    UpdateCase{R"({"%mul": {"a": 2.5}})", R"({"_id": 1})", R"({"_id": 1, "a": 0.0})", true},
    UpdateCase{R"({"%mul": {"a": {"$numberLong": "5"}}})", R"({"_id": 1, "a": 2})",
               R"({"_id": 1, "a": {"$numberLong": "10"}})", true},
    UpdateCase{R"({"%mul": {"a": 65536}})", R"({"_id": 1, "a": 65536})",
               R"({"_id": 1, "a": {"$numberLong": "4294967296"}})", true},
    UpdateCase{R"({"%mul": {"a": 1}})", R"({"_id": 1, "a": 7})", R"({"_id": 1, "a": 7})", false}));

INSTANTIATE_TEST_SUITE_P(MinMax, UpdateTest, testing::Values(
    UpdateCase{R"({"%min": {"a": 150}})", R"({"_id": 1, "a": 200})", R"({"_id": 1, "a": 150})", true},
    UpdateCase{R"({"%min": {"a": 250}})", R"({"_id": 1, "a": 200})", R"({"_id": 1, "a": 200})", false},
    UpdateCase{R"({"%min": {"a": 200.0}})", R"({"_id": 1, "a": 200})", R"({"_id": 1, "a": 200})", false},
    UpdateCase{R"({"%max": {"a": 950}})", R"({"_id": 1, "a": 800})", R"({"_id": 1, "a": 950})", true},
    UpdateCase{R"({"%max": {"a": 870}})", R"({"_id": 1, "a": 950})", R"({"_id": 1, "a": 950})", false},
    UpdateCase{R"({"%max": {"a": 1}})", R"({"_id": 1})", R"({"_id": 1, "a": 1})", true},
    // Across types, BSON order: numbers < strings.
    UpdateCase{R"({"%max": {"a": "x"}})", R"({"_id": 1, "a": 100})", R"({"_id": 1, "a": "x"})", true},
    UpdateCase{R"({"%min": {"a": null}})", R"({"_id": 1, "a": 100})", R"({"_id": 1, "a": null})", true},
    UpdateCase{R"({"%min": {"d": {"$date": "2013-09-25T00:00:00Z"}}})",
               R"({"_id": 1, "d": {"$date": "2013-10-01T00:00:00Z"}})",
               R"({"_id": 1, "d": {"$date": "2013-09-25T00:00:00Z"}})", true}));

INSTANTIATE_TEST_SUITE_P(Rename, UpdateTest, testing::Values(
    UpdateCase{R"({"%rename": {"a": "b"}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "b": 1})", true},
    UpdateCase{R"({"%rename": {"a": "b"}})", R"({"_id": 1, "b": 0, "a": 1})", R"({"_id": 1, "b": 1})", true},
    UpdateCase{R"({"%rename": {"b": "a"}})", R"({"_id": 1, "a": 0, "b": 1})", R"({"_id": 1, "a": 1})", true},
    UpdateCase{R"({"%rename": {"x": "y"}})", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1})", false},
    UpdateCase{R"({"%rename": {"a.b": "c"}})", R"({"_id": 1, "a": {"b": 1, "d": 2}})",
               R"({"_id": 1, "a": {"d": 2}, "c": 1})", true},
    UpdateCase{R"({"%rename": {"c": "a.b"}})", R"({"_id": 1, "c": {"x": 1}})",
               R"({"_id": 1, "a": {"b": {"x": 1}}})", true}));

INSTANTIATE_TEST_SUITE_P(PathsThroughScalars, UpdateTest, testing::Values(
    // $setOnInsert and $rename without a source never create, so a scalar
    // in their way is no error.
    UpdateCase{R"({"%setOnInsert": {"a.b": 1}})", R"({"_id": 1, "a": 5})", R"({"_id": 1, "a": 5})",
               false},
    UpdateCase{R"({"%rename": {"x": "a.b"}})", R"({"_id": 1, "a": 5})", R"({"_id": 1, "a": 5})",
               false},
    UpdateCase{R"({"%unset": {"a.0.b": 1}})", R"({"_id": 1, "a": [5]})", R"({"_id": 1, "a": [5]})",
               false}));

INSTANTIATE_TEST_SUITE_P(Replacement, UpdateTest, testing::Values(
    UpdateCase{R"({"b": 2, "a": 1})", R"({"_id": 1, "x": 1})", R"({"_id": 1, "b": 2, "a": 1})", true},
    UpdateCase{R"({})", R"({"_id": 1, "x": 1})", R"({"_id": 1})", true},
    UpdateCase{R"({"a": 1, "_id": 1})", R"({"_id": 1, "x": 1})", R"({"a": 1, "_id": 1})", true},
    UpdateCase{R"({"x": 1})", R"({"_id": 1, "x": 1})", R"({"_id": 1, "x": 1})", false},
    UpdateCase{R"({"a": {"%b": 1}})", R"({"_id": 1})", R"({"_id": 1, "a": {"%b": 1}})", true}));

TEST(UpdateTest, CurrentDateSetsDateOrTimestamp) {
  BsonDoc update = Json(R"({"%currentDate": {"d": true, "t": {"%type": "timestamp"}, "e": {"%type": "date"}}})");
  auto driver = UpdateDriver::Parse(update.get());
  ASSERT_TRUE(driver.ok()) << driver.status().ToString();
  BsonDoc doc = Json(R"({"_id": 1})");
  auto result = driver.value().Apply(doc.get(), false);
  ASSERT_TRUE(result.ok());
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, result.value().doc.get(), "d"));
  EXPECT_TRUE(BSON_ITER_HOLDS_DATE_TIME(&it));
  EXPECT_GT(bson_iter_date_time(&it), 1600000000000);
  ASSERT_TRUE(bson_iter_init_find(&it, result.value().doc.get(), "e"));
  EXPECT_TRUE(BSON_ITER_HOLDS_DATE_TIME(&it));
  ASSERT_TRUE(bson_iter_init_find(&it, result.value().doc.get(), "t"));
  EXPECT_TRUE(BSON_ITER_HOLDS_TIMESTAMP(&it));
  EXPECT_TRUE(result.value().modified);
}

TEST(UpdateTest, ReportsReplacementKind) {
  BsonDoc a = Json(R"({"a": 1})");
  BsonDoc b = Json(R"({"%set": {"a": 1}})");
  EXPECT_TRUE(UpdateDriver::Parse(a.get()).value().is_replacement());
  EXPECT_FALSE(UpdateDriver::Parse(b.get()).value().is_replacement());
}

struct ErrorCase {
  const char* update;
  const char* doc;  // nullptr: the error is at parse time
  int code;
  const char* message;
};

void PrintTo(const ErrorCase& c, std::ostream* os) { *os << c.update; }

class UpdateErrorTest : public testing::TestWithParam<ErrorCase> {};

TEST_P(UpdateErrorTest, FailsLikeMongoDB) {
  const ErrorCase& c = GetParam();
  BsonDoc update = Json(c.update);
  auto driver = UpdateDriver::Parse(update.get());
  Status status;
  if (c.doc == nullptr) {
    ASSERT_FALSE(driver.ok()) << "parsed";
    status = driver.status();
  } else {
    ASSERT_TRUE(driver.ok()) << driver.status().ToString();
    BsonDoc doc = Json(c.doc);
    auto result = driver.value().Apply(doc.get(), false);
    ASSERT_FALSE(result.ok()) << result.value().doc.ToJson();
    status = result.status();
  }
  EXPECT_EQ(status.code_number(), c.code);
  if (c.message) {
    EXPECT_EQ(status.reason(), c.message);
  }
}

INSTANTIATE_TEST_SUITE_P(ParseErrors, UpdateErrorTest, testing::Values(
    ErrorCase{R"({"%foo": {"a": 1}})", nullptr, 9,
              "Unknown modifier: $foo. Expected a valid update modifier or pipeline-style update "
              "specified as an array"},
    ErrorCase{R"({"%set": {"a": 1}, "b": 2})", nullptr, 9,
              "Unknown modifier: b. Expected a valid update modifier or pipeline-style update "
              "specified as an array"},
    ErrorCase{R"({"%set": {}})", nullptr, 9,
              "'$set' is empty. You must specify a field like so: {$set: {<field_name>: ...}}"},
    ErrorCase{R"({"%set": 5})", nullptr, 9,
              "Modifiers operate on fields but we found type int instead. For example: {$mod: "
              "{<field>: ...}} not {$set: 5}"},
    ErrorCase{R"({"%set": {"a": 1}, "%inc": {"a": 1}})", nullptr, 40,
              "Updating the path 'a' would create a conflict at 'a'"},
    ErrorCase{R"({"%set": {"a": 1}, "%inc": {"a.b": 1}})", nullptr, 40,
              "Updating the path 'a.b' would create a conflict at 'a'"},
    ErrorCase{R"({"%set": {"a.b": 1}, "%inc": {"a": 1}})", nullptr, 40,
              "Updating the path 'a' would create a conflict at 'a'"},
    ErrorCase{R"({"%set": {"a.b.c": 1}, "%unset": {"a.b": 1}})", nullptr, 40,
              "Updating the path 'a.b' would create a conflict at 'a.b'"},
    ErrorCase{R"({"%rename": {"a": "b"}, "%set": {"b": 1}})", nullptr, 40,
              "Updating the path 'b' would create a conflict at 'b'"},
    ErrorCase{R"({"%inc": {"a": "x"}})", nullptr, 14, "Cannot increment with non-numeric argument: {a: \"x\"}"},
    ErrorCase{R"({"%mul": {"a": null}})", nullptr, 14, "Cannot multiply with non-numeric argument: {a: null}"},
    ErrorCase{R"({"%set": {"": 1}})", nullptr, 56, "An empty update path is not valid."},
    ErrorCase{R"({"%set": {"a..b": 1}})", nullptr, 56,
              "The update path 'a..b' contains an empty field name, which is not allowed."},
    ErrorCase{R"({"%rename": {"a": 1}})", nullptr, 2, "The 'to' field for $rename must be a string: a: 1"},
    ErrorCase{R"({"%rename": {"a": "a"}})", nullptr, 2,
              "The source and target field for $rename must differ: a: \"a\""},
    ErrorCase{R"({"%rename": {"a": "a.b"}})", nullptr, 2,
              "The source and target field for $rename must not be on the same path: a: \"a.b\""},
    ErrorCase{R"({"%currentDate": {"a": 1}})", nullptr, 2,
              "int is not valid type for $currentDate. Please use a boolean ('true') or a $type "
              "expression ({$type: 'timestamp/date'})."},
    ErrorCase{R"({"%currentDate": {"a": {"%type": "x"}}})", nullptr, 2,
              "The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: "
              "{field : {$type: 'date'}}}"},
    ErrorCase{R"({"a": 1, "%b": 2})", nullptr, 52,
              "The dollar ($) prefixed field '$b' in '$b' is not allowed in the context of an "
              "update's replacement document. Consider using an aggregation pipeline with "
              "$replaceWith."},
    ErrorCase{R"({"%Set": {"a": 1}})", nullptr, 9,
              "Unknown modifier: $Set. Expected a valid update modifier or pipeline-style update "
              "specified as an array"},
    ErrorCase{R"({"%unset": {}})", nullptr, 9,
              "'$unset' is empty. You must specify a field like so: {$unset: {<field_name>: ...}}"},
    ErrorCase{R"({"%inc": []})", nullptr, 9,
              "Modifiers operate on fields but we found type array instead. For example: {$mod: "
              "{<field>: ...}} not {$inc: []}"},
    // Conflicts within one operator, and across operators, either order.
    ErrorCase{R"({"%set": {"a.b": 1, "a": 2}})", nullptr, 40,
              "Updating the path 'a' would create a conflict at 'a'"},
    ErrorCase{R"({"%set": {"a": 2, "a.b.c": 1}})", nullptr, 40,
              "Updating the path 'a.b.c' would create a conflict at 'a'"},
    ErrorCase{R"({"%push": {"a": 1}, "%pop": {"a": 1}})", nullptr, 40,
              "Updating the path 'a' would create a conflict at 'a'"},
    ErrorCase{R"({"%rename": {"a": "b"}, "%unset": {"a": 1}})", nullptr, 40,
              "Updating the path 'a' would create a conflict at 'a'"},
    ErrorCase{R"({"%inc": {"a": [1]}})", nullptr, 14,
              "Cannot increment with non-numeric argument: {a: [ 1 ]}"}));

INSTANTIATE_TEST_SUITE_P(ApplyErrors, UpdateErrorTest, testing::Values(
    ErrorCase{R"({"%inc": {"a": 1}})", R"({"_id": 1, "a": "x"})", 14,
              "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field 'a' of "
              "non-numeric type string"},
    ErrorCase{R"({"%inc": {"b.a": 1}})", R"({"_id": "k", "b": {"a": [1]}})", 14,
              "Cannot apply $inc to a value of non-numeric type. {_id: \"k\"} has the field 'a' of "
              "non-numeric type array"},
    ErrorCase{R"({"%mul": {"a": 2}})", R"({"_id": 1, "a": null})", 14,
              "Cannot apply $mul to a value of non-numeric type. {_id: 1} has the field 'a' of "
              "non-numeric type null"},
    ErrorCase{R"({"%inc": {"a": 1}})", R"({"_id": 1, "a": {"$numberLong": "9223372036854775807"}})", 2,
              "Failed to apply $inc operations to current value ((NumberLong)9223372036854775807) "
              "for document {_id: 1}"},
    ErrorCase{R"({"%set": {"a.b": 1}})", R"({"_id": 1, "a": 5})", 28,
              "Cannot create field 'b' in element {a: 5}"},
    ErrorCase{R"({"%set": {"a.b.c": 1}})", R"({"_id": 1, "a": {"b": "x"}})", 28,
              "Cannot create field 'c' in element {b: \"x\"}"},
    ErrorCase{R"({"%set": {"a.b": 1}})", R"({"_id": 1, "a": [1, 2]})", 28,
              "Cannot create field 'b' in element {a: [ 1, 2 ]}"},
    ErrorCase{R"({"%set": {"_id": 2}})", R"({"_id": 1})", 66,
              "Performing an update on the path '_id' would modify the immutable field '_id'"},
    ErrorCase{R"({"%unset": {"_id": 1}})", R"({"_id": 1})", 66,
              "Performing an update on the path '_id' would modify the immutable field '_id'"},
    ErrorCase{R"({"%set": {"_id.x": 2}})", R"({"_id": {"x": 1}})", 66,
              "Performing an update on the path '_id.x' would modify the immutable field '_id'"},
    ErrorCase{R"({"%inc": {"_id": 1}})", R"({"_id": 1})", 66, nullptr},
    ErrorCase{R"({"_id": 2, "a": 1})", R"({"_id": 1})", 66,
              "After applying the update, the (immutable) field '_id' was found to have been "
              "altered to _id: 2"},
    ErrorCase{R"({"%set": {"_id": [1]}})", R"({"a": 1})", 53, "The '_id' value cannot be of type array"},
    // $inc on a non-number, at any depth.
    ErrorCase{R"({"%inc": {"a.1": 1}})", R"({"_id": 1, "a": [1, "x"]})", 14,
              "Cannot apply $inc to a value of non-numeric type. {_id: 1} has the field '1' of "
              "non-numeric type string"},
    // Paths through scalars: the first modifier that would create something
    // names the missing field; $unset alone is fine.
    ErrorCase{R"({"%set": {"a.0.b": 1}})", R"({"_id": 1, "a": [5]})", 28,
              "Cannot create field 'b' in element {0: 5}"},
    ErrorCase{R"({"%unset": {"a.b": 1}, "%set": {"a.c": 1}})", R"({"_id": 1, "a": 5})", 28,
              "Cannot create field 'c' in element {a: 5}"},
    ErrorCase{R"({"%set": {"a.b.c": 1}})", R"({"_id": 1, "a": true})", 28,
              "Cannot create field 'b' in element {a: true}"},
    ErrorCase{R"({"%inc": {"a.x": 1}})", R"({"_id": 1, "a": [{"x": 1}]})", 28,
              "Cannot create field 'x' in element {a: [ { x: 1 } ]}"}));

struct UpsertCase {
  const char* filter;
  const char* update;
  const char* expected;
};

void PrintTo(const UpsertCase& c, std::ostream* os) { *os << c.filter << " / " << c.update; }

class UpsertTest : public testing::TestWithParam<UpsertCase> {};

TEST_P(UpsertTest, BuildsTheInsertedDocumentLikeMongoDB) {
  const UpsertCase& c = GetParam();
  BsonDoc filter = Json(c.filter);
  auto seed = BuildUpsertSeed(filter.get());
  ASSERT_TRUE(seed.ok()) << seed.status().ToString();
  BsonDoc update = Json(c.update);
  auto driver = UpdateDriver::Parse(update.get());
  ASSERT_TRUE(driver.ok()) << driver.status().ToString();
  auto result = driver.value().Apply(seed.value().get(), /*is_upsert_insert=*/true);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  BsonDoc expected = Json(c.expected);
  EXPECT_TRUE(bson_equal(result.value().doc.get(), expected.get()))
      << "got " << result.value().doc.ToJson() << " want " << expected.ToJson();
}

INSTANTIATE_TEST_SUITE_P(Upserts, UpsertTest, testing::Values(
    UpsertCase{R"({"a": 1})", R"({"%set": {"b": 2}})", R"({"a": 1, "b": 2})"},
    UpsertCase{R"({"a": 1, "_id": 5})", R"({"%set": {"b": 2}})", R"({"_id": 5, "a": 1, "b": 2})"},
    UpsertCase{R"({"a": {"%gt": 1}, "b": 2})", R"({"%set": {"c": 3}})", R"({"b": 2, "c": 3})"},
    UpsertCase{R"({"a.b": 1, "a.c": 2})", R"({"%set": {"d": 3}})", R"({"a": {"b": 1, "c": 2}, "d": 3})"},
    UpsertCase{R"({"%and": [{"a": 1}, {"b": {"%eq": 2}}]})", R"({"%inc": {"n": 1}})",
               R"({"a": 1, "b": 2, "n": 1})"},
    UpsertCase{R"({"a": {"%in": [7]}})", R"({"%set": {"b": 1}})", R"({"a": 7, "b": 1})"},
    UpsertCase{R"({"a": {"%in": [7, 8]}})", R"({"%set": {"b": 1}})", R"({"b": 1})"},
    UpsertCase{R"({"%or": [{"a": 1}, {"a": 2}]})", R"({"%set": {"b": 1}})", R"({"b": 1})"},
    UpsertCase{R"({"a": 1})", R"({"%setOnInsert": {"created": true}, "%set": {"b": 2}})",
               R"({"a": 1, "b": 2, "created": true})"},
    UpsertCase{R"({"_id": 1})", R"({"%set": {"a.b": 1}})", R"({"_id": 1, "a": {"b": 1}})"},
    UpsertCase{R"({"a": 1})", R"({"%set": {"_id": 9}})", R"({"_id": 9, "a": 1})"},
    UpsertCase{R"({"_id": 3, "x": 1})", R"({"y": 2})", R"({"_id": 3, "y": 2})"},
    UpsertCase{R"({"x": 1})", R"({"y": 2})", R"({"y": 2})"},
    UpsertCase{R"({"a": {"b": 1}})", R"({"%set": {"c": 1}})", R"({"a": {"b": 1}, "c": 1})"}));

TEST(UpsertSeedTest, RejectsTheSamePathTwice) {
  BsonDoc filter = Json(R"({"%and": [{"a": 1}, {"a": 2}]})");
  auto seed = BuildUpsertSeed(filter.get());
  ASSERT_FALSE(seed.ok());
  EXPECT_EQ(seed.status().code_number(), 54);
  EXPECT_EQ(seed.status().reason(), "cannot infer query fields to set, path 'a' is matched twice");
}

TEST(UpsertSeedTest, RejectsNestedPaths) {
  BsonDoc filter = Json(R"({"a": {"x": 1}, "a.b": 2})");
  auto seed = BuildUpsertSeed(filter.get());
  ASSERT_FALSE(seed.ok());
  EXPECT_EQ(seed.status().code_number(), 54);
}

TEST(UpsertSeedTest, PropagatesFilterErrors) {
  BsonDoc filter = Json(R"({"a": {"%bad": 1}})");
  auto seed = BuildUpsertSeed(filter.get());
  ASSERT_FALSE(seed.ok());
  EXPECT_EQ(seed.status().code_number(), 2);
}

TEST(UpsertSeedTest, ImmutableIdFromTheFilter) {
  BsonDoc filter = Json(R"({"_id": 1})");
  auto seed = BuildUpsertSeed(filter.get());
  ASSERT_TRUE(seed.ok());
  BsonDoc update = Json(R"({"%set": {"_id": 2}})");
  auto result = UpdateDriver::Parse(update.get()).value().Apply(seed.value().get(), true);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code_number(), 66);
}

}  // namespace
}  // namespace tigerdoc::update
