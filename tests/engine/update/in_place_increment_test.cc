// The in-place $inc (in_place_increment.h) must answer exactly as the
// general path does: every {$inc: ...} below is applied as it is (eligible
// for the in-place path) and with an inert $setOnInsert beside it (which
// keeps it on the general path), and both answers must be the same bytes,
// the same `modified`, or the same error.

#include "engine/update/in_place_increment.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/update/update_driver.h"

namespace tigerdoc::update {
namespace {

using bson::BsonDoc;
using Appender = std::function<void(bson_t*, const char*)>;

struct Named {
  std::string name;
  Appender append;  // nullptr: the field is left out
};

std::vector<Named> Values() {
  auto i32 = [](int32_t v) { return [v](bson_t* d, const char* k) { bson_append_int32(d, k, -1, v); }; };
  auto i64 = [](int64_t v) { return [v](bson_t* d, const char* k) { bson_append_int64(d, k, -1, v); }; };
  auto dbl = [](double v) { return [v](bson_t* d, const char* k) { bson_append_double(d, k, -1, v); }; };
  return {
      {"int32 0", i32(0)}, {"int32 1", i32(1)}, {"int32 -1", i32(-1)},
      {"int32 max", i32(std::numeric_limits<int32_t>::max())},
      {"int32 min", i32(std::numeric_limits<int32_t>::min())},
      {"int64 0", i64(0)}, {"int64 2^40", i64(int64_t{1} << 40)},
      {"int64 max", i64(std::numeric_limits<int64_t>::max())},
      {"int64 min", i64(std::numeric_limits<int64_t>::min())},
      {"double 0", dbl(0.0)}, {"double -0", dbl(-0.0)}, {"double 1.5", dbl(1.5)},
      {"double nan", dbl(std::nan(""))}, {"double inf", dbl(INFINITY)},
      {"decimal 1", [](bson_t* d, const char* k) {
         bson_decimal128_t dec;
         bson_decimal128_from_string("1", &dec);
         bson_append_decimal128(d, k, -1, &dec);
       }},
      {"string", [](bson_t* d, const char* k) { bson_append_utf8(d, k, -1, "x", -1); }},
      {"null", [](bson_t* d, const char* k) { bson_append_null(d, k, -1); }},
      {"document", [](bson_t* d, const char* k) {
         bson_t sub;
         bson_append_document_begin(d, k, -1, &sub);
         bson_append_int32(&sub, "n", -1, 1);
         bson_append_document_end(d, &sub);
       }},
      {"missing", nullptr},
  };
}

std::vector<Named> Increments() {
  std::vector<Named> out;
  for (const Named& v : Values()) {
    const std::string& n = v.name;
    if (n.rfind("int", 0) == 0 || n == "double 0" || n == "double -0" || n == "double 1.5") {
      out.push_back(v);
    }
  }
  return out;
}

// The documents each value is stored in, as field "n".
std::vector<Named> Shapes() {
  auto id = [](bson_t* d) { bson_append_int32(d, "_id", -1, 7); };
  return {
      {"{_id, n, s}", [id](bson_t* d, const char*) { id(d); }},
      {"{n} without _id", [](bson_t*, const char*) {}},
      {"{_id: [1], n}", [](bson_t* d, const char*) {
         bson_t a;
         bson_append_array_begin(d, "_id", -1, &a);
         bson_append_int32(&a, "0", -1, 1);
         bson_append_array_end(d, &a);
       }},
      {"{_id, r: regex, n}", [id](bson_t* d, const char*) {
         id(d);
         bson_append_regex(d, "r", -1, "a", "i");
       }},
      // The general path renumbers the array (keys "0", "1"): not in place.
      {"{_id, x: {a: array keyed 1, 0}, n}", [id](bson_t* d, const char*) {
         id(d);
         bson_t x, a;
         bson_append_document_begin(d, "x", -1, &x);
         bson_append_array_begin(&x, "a", -1, &a);
         bson_append_int32(&a, "1", -1, 1);
         bson_append_int32(&a, "0", -1, 2);
         bson_append_array_end(&x, &a);
         bson_append_document_end(d, &x);
       }},
  };
}

BsonDoc Document(const Named& shape, const Named& value, bool twice) {
  BsonDoc doc;
  shape.append(doc.mutable_get(), nullptr);
  if (value.append) value.append(doc.mutable_get(), "n");
  bson_append_utf8(doc.mutable_get(), "s", -1, "tail", -1);
  bson_append_int64(doc.mutable_get(), "m", -1, 5);
  if (twice && value.append) value.append(doc.mutable_get(), "n");
  return doc;
}

// {$inc: {n: inc[, m: 1]}}, with `{$setOnInsert: {zz: 1}}` when `general`.
BsonDoc Update(const Named& inc, bool second_field, bool general) {
  BsonDoc update;
  bson_t fields;
  bson_append_document_begin(update.mutable_get(), "$inc", -1, &fields);
  inc.append(&fields, "n");
  if (second_field) bson_append_int32(&fields, "m", -1, 1);
  bson_append_document_end(update.mutable_get(), &fields);
  if (general) {
    bson_t inert;
    bson_append_document_begin(update.mutable_get(), "$setOnInsert", -1, &inert);
    bson_append_int32(&inert, "zz", -1, 1);
    bson_append_document_end(update.mutable_get(), &inert);
  }
  return update;
}

TEST(InPlaceIncrementTest, AnswersAsTheGeneralPathForEveryTypeShapeAndEdge) {
  int in_place_answers = 0;
  for (const Named& shape : Shapes()) {
    for (const Named& value : Values()) {
      for (bool twice : {false, true}) {
        const BsonDoc doc = Document(shape, value, twice);
        for (const Named& inc : Increments()) {
          for (bool second : {false, true}) {
            SCOPED_TRACE(shape.name + ", n " + value.name + (twice ? " twice" : "") + ", $inc " +
                         inc.name + (second ? " and m" : ""));
            const BsonDoc fast_update = Update(inc, second, false);
            const BsonDoc general_update = Update(inc, second, true);
            auto fast = UpdateDriver::Parse(fast_update.get());
            auto general = UpdateDriver::Parse(general_update.get());
            ASSERT_TRUE(fast.ok() && general.ok());
            auto a = fast.value().Apply(doc.get(), false);
            auto b = general.value().Apply(doc.get(), false);
            ASSERT_EQ(a.ok(), b.ok());
            if (!a.ok()) {
              EXPECT_EQ(a.status().ToString(), b.status().ToString());
              continue;
            }
            EXPECT_EQ(a.value().doc.size(), b.value().doc.size());
            EXPECT_EQ(a.value().doc.ToJson(), b.value().doc.ToJson());
            EXPECT_TRUE(a.value().doc.size() == b.value().doc.size() &&
                        std::memcmp(a.value().doc.data(), b.value().doc.data(), a.value().doc.size()) == 0);
            EXPECT_EQ(a.value().modified, b.value().modified);
            BsonDoc out;
            bool modified = false;
            in_place_answers += InPlaceIncrement::Plan(fast_update.get())->Apply(doc.get(), &out, &modified);
          }
        }
      }
    }
  }
  EXPECT_GT(in_place_answers, 100);  // the comparison did exercise the in-place path
}

TEST(InPlaceIncrementTest, PlansOnlyPlainTopLevelIncrements) {
  auto plan = [](const char* json) {
    bson_error_t error;
    bson_t* update = bson_new_from_json(reinterpret_cast<const uint8_t*>(json), -1, &error);
    EXPECT_NE(update, nullptr) << error.message;
    const bool planned = InPlaceIncrement::Plan(update).has_value();
    bson_destroy(update);
    return planned;
  };
  EXPECT_TRUE(plan(R"({"$inc": {"n": 1}})"));
  EXPECT_TRUE(plan(R"({"$inc": {"n": 1, "m": {"$numberLong": "2"}, "d": 0.5}})"));
  EXPECT_FALSE(plan(R"({"$inc": {"a.b": 1}})"));
  EXPECT_FALSE(plan(R"({"$inc": {"_id": 1}})"));
  EXPECT_FALSE(plan(R"({"$inc": {"$": 1}})"));
  EXPECT_FALSE(plan(R"({"$inc": {"n": {"$numberDecimal": "1"}}})"));
  EXPECT_FALSE(plan(R"({"$inc": {"n": 1}, "$set": {"m": 1}})"));
  EXPECT_FALSE(plan(R"({"$set": {"n": 1}})"));
  EXPECT_FALSE(plan(R"({"$inc": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1}})"));
  EXPECT_FALSE(plan(R"({"$inc": {"n": 1, "m": 1, "n": 2}})"));
}

// A planned $inc defers its update tree (update_driver.cc): what the parse
// alone used to reject must still be rejected at parse time, with the
// general path's answer, and a declining document must meet the same
// errors as before.
TEST(InPlaceIncrementTest, DeferredTreeKeepsParseErrorsAndDeclinedAnswers) {
  auto parse = [](const char* json, const char* filters = nullptr) {
    BsonDoc update = BsonDoc::FromJson(json);
    if (filters == nullptr) return UpdateDriver::Parse(update.get()).status();
    BsonDoc array_filters = BsonDoc::FromJson(filters);
    return UpdateDriver::Parse(update.get(), array_filters.get()).status();
  };
  Status repeated = parse(R"({"$inc": {"n": 1, "n": 2}})");
  EXPECT_EQ(repeated.code(), ErrorCode::kConflictingUpdateOperators) << repeated.ToString();
  Status unused_filter = parse(R"({"$inc": {"n": 1}})", R"({"0": {"x": 1}})");
  EXPECT_EQ(unused_filter.code(), ErrorCode::kFailedToParse) << unused_filter.ToString();
  EXPECT_NE(unused_filter.ToString().find("was not used"), std::string::npos) << unused_filter.ToString();

  auto driver = UpdateDriver::Parse(BsonDoc::FromJson(R"({"$inc": {"n": 1}})").get());
  ASSERT_TRUE(driver.ok());
  // A string is not incremented: the deferred tree reports it as before.
  auto on_string = driver.value().Apply(BsonDoc::FromJson(R"({"_id": 1, "n": "x"})").get(), false);
  ASSERT_FALSE(on_string.ok());
  EXPECT_EQ(on_string.status().code(), ErrorCode::kTypeMismatch) << on_string.status().ToString();
  EXPECT_NE(on_string.status().ToString().find("_id: 1"), std::string::npos) << on_string.status().ToString();
  // A missing field is created, an upsert's insert takes the tree, twice.
  for (int round = 0; round < 2; ++round) {
    auto missing = driver.value().Apply(BsonDoc::FromJson(R"({"_id": 1})").get(), false);
    ASSERT_TRUE(missing.ok());
    EXPECT_EQ(missing.value().doc.ToJson(), BsonDoc::FromJson(R"({"_id": 1, "n": 1})").ToJson());
    auto upsert = driver.value().Apply(BsonDoc::FromJson(R"({"_id": 2})").get(), true);
    ASSERT_TRUE(upsert.ok());
    EXPECT_EQ(upsert.value().doc.ToJson(), BsonDoc::FromJson(R"({"_id": 2, "n": 1})").ToJson());
  }
}

}  // namespace
}  // namespace tigerdoc::update
