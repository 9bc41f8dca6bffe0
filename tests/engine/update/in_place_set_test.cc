// The in-place $set (in_place_set.h) must answer exactly as the general
// path does: every {$set: ...} below is applied as it is (eligible for the
// in-place path) and with an inert $setOnInsert beside it (which keeps it on
// the general path), and both answers must be the same bytes, the same
// `modified`, or the same error, over value types, document shapes and the
// field's place in the document.

#include "engine/update/in_place_set.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
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

void AppendArray(bson_t* d, const char* k, const std::vector<const char*>& keys) {
  bson_t a;
  bson_append_array_begin(d, k, -1, &a);
  int n = 0;
  for (const char* key : keys) bson_append_int32(&a, key, -1, ++n);
  bson_append_array_end(d, &a);
}

// Values stored in the document and values $set writes.
std::vector<Named> Values() {
  return {
      {"int32 1", [](bson_t* d, const char* k) { bson_append_int32(d, k, -1, 1); }},
      {"int64 1", [](bson_t* d, const char* k) { bson_append_int64(d, k, -1, 1); }},
      {"double 1", [](bson_t* d, const char* k) { bson_append_double(d, k, -1, 1.0); }},
      {"double -0", [](bson_t* d, const char* k) { bson_append_double(d, k, -1, -0.0); }},
      {"double nan", [](bson_t* d, const char* k) { bson_append_double(d, k, -1, std::nan("")); }},
      {"decimal 1", [](bson_t* d, const char* k) {
         bson_decimal128_t dec;
         bson_decimal128_from_string("1", &dec);
         bson_append_decimal128(d, k, -1, &dec);
       }},
      {"string x", [](bson_t* d, const char* k) { bson_append_utf8(d, k, -1, "x", -1); }},
      {"string 100", [](bson_t* d, const char* k) {
         bson_append_utf8(d, k, -1, std::string(100, 'y').c_str(), -1);
       }},
      {"string 100 other", [](bson_t* d, const char* k) {
         bson_append_utf8(d, k, -1, std::string(100, 'z').c_str(), -1);
       }},
      {"string empty", [](bson_t* d, const char* k) { bson_append_utf8(d, k, -1, "", 0); }},
      {"null", [](bson_t* d, const char* k) { bson_append_null(d, k, -1); }},
      {"bool", [](bson_t* d, const char* k) { bson_append_bool(d, k, -1, true); }},
      {"binary", [](bson_t* d, const char* k) {
         const uint8_t bytes[3] = {1, 2, 3};
         bson_append_binary(d, k, -1, BSON_SUBTYPE_BINARY, bytes, 3);
       }},
      {"document", [](bson_t* d, const char* k) {
         bson_t sub;
         bson_append_document_begin(d, k, -1, &sub);
         bson_append_int32(&sub, "a", -1, 1);
         bson_append_document_end(d, &sub);
       }},
      {"empty document", [](bson_t* d, const char* k) {
         bson_t sub;
         bson_append_document_begin(d, k, -1, &sub);
         bson_append_document_end(d, &sub);
       }},
      {"array [1, 2]", [](bson_t* d, const char* k) { AppendArray(d, k, {"0", "1"}); }},
      {"array with keys a, b", [](bson_t* d, const char* k) { AppendArray(d, k, {"a", "b"}); }},
      {"document holding a regex", [](bson_t* d, const char* k) {
         bson_t sub;
         bson_append_document_begin(d, k, -1, &sub);
         bson_append_regex(&sub, "r", -1, "a", "xi");
         bson_append_document_end(d, &sub);
       }},
      {"regex", [](bson_t* d, const char* k) { bson_append_regex(d, k, -1, "a", "xi"); }},
      {"missing", nullptr},
  };
}

// Documents: `n` (the set field) among others, in several places.
struct Shape {
  std::string name;
  std::function<void(bson_t*, const Named& n, bool twice)> build;
};

std::vector<Shape> Shapes() {
  auto id = [](bson_t* d) { bson_append_utf8(d, "_id", -1, "user1", -1); };
  auto put = [](bson_t* d, const Named& n) {
    if (n.append) n.append(d, "n");
  };
  return {
      {"{_id, n, s, m}", [=](bson_t* d, const Named& n, bool twice) {
         id(d);
         put(d, n);
         bson_append_utf8(d, "s", -1, "tail", -1);
         bson_append_int64(d, "m", -1, 5);
         if (twice) put(d, n);
       }},
      {"{_id, s, m, n} (last)", [=](bson_t* d, const Named& n, bool twice) {
         id(d);
         bson_append_utf8(d, "s", -1, "tail", -1);
         if (twice) put(d, n);
         bson_append_int64(d, "m", -1, 5);
         put(d, n);
       }},
      {"{n, m} without _id", [=](bson_t* d, const Named& n, bool twice) {
         put(d, n);
         bson_append_int64(d, "m", -1, 5);
         if (twice) put(d, n);
       }},
      {"{_id: [1], n, m}", [=](bson_t* d, const Named& n, bool) {
         AppendArray(d, "_id", {"0"});
         put(d, n);
         bson_append_int64(d, "m", -1, 5);
       }},
      {"{_id, x: {a: [1, 2]}, n, m}", [=](bson_t* d, const Named& n, bool) {
         id(d);
         bson_t x;
         bson_append_document_begin(d, "x", -1, &x);
         AppendArray(&x, "a", {"0", "1"});
         bson_append_document_end(d, &x);
         put(d, n);
         bson_append_int64(d, "m", -1, 5);
       }},
      {"{_id, x: {a: array keyed 1, 0}, n, m}", [=](bson_t* d, const Named& n, bool) {
         id(d);
         bson_t x;
         bson_append_document_begin(d, "x", -1, &x);
         AppendArray(&x, "a", {"1", "0"});
         bson_append_document_end(d, &x);
         put(d, n);
         bson_append_int64(d, "m", -1, 5);
       }},
      {"{_id, r: regex, n, m}", [=](bson_t* d, const Named& n, bool) {
         id(d);
         bson_append_regex(d, "r", -1, "a", "i");
         put(d, n);
         bson_append_int64(d, "m", -1, 5);
       }},
      {"{_id, x: {r: regex}, n, m}", [=](bson_t* d, const Named& n, bool) {
         id(d);
         bson_t x;
         bson_append_document_begin(d, "x", -1, &x);
         bson_append_regex(&x, "r", -1, "a", "mi");
         bson_append_document_end(d, &x);
         put(d, n);
         bson_append_int64(d, "m", -1, 5);
       }},
  };
}

// {$set: {n: value[, m: 6]}} (m first when `m_first`), with an inert
// {$setOnInsert: {zz: 1}} when `general`.
BsonDoc Update(const Named& value, bool second_field, bool m_first, bool general) {
  BsonDoc update;
  bson_t fields;
  bson_append_document_begin(update.mutable_get(), "$set", -1, &fields);
  if (second_field && m_first) bson_append_int64(&fields, "m", -1, 6);
  value.append(&fields, "n");
  if (second_field && !m_first) bson_append_int64(&fields, "m", -1, 6);
  bson_append_document_end(update.mutable_get(), &fields);
  if (general) {
    bson_t inert;
    bson_append_document_begin(update.mutable_get(), "$setOnInsert", -1, &inert);
    bson_append_int32(&inert, "zz", -1, 1);
    bson_append_document_end(update.mutable_get(), &inert);
  }
  return update;
}

TEST(InPlaceSetTest, AnswersAsTheGeneralPathForEveryTypeShapeAndEdge) {
  int in_place_answers = 0, unmodified_answers = 0;
  for (const Shape& shape : Shapes()) {
    for (const Named& stored : Values()) {
      for (bool twice : {false, true}) {
        BsonDoc doc;
        shape.build(doc.mutable_get(), stored, twice);
        for (const Named& value : Values()) {
          if (!value.append) continue;
          for (int variant = 0; variant < 3; ++variant) {
            const bool second = variant > 0, m_first = variant == 2;
            SCOPED_TRACE(shape.name + ", n " + stored.name + (twice ? " twice" : "") + ", $set " +
                         value.name + (second ? (m_first ? " after m" : " and m") : ""));
            const BsonDoc fast_update = Update(value, second, m_first, false);
            const BsonDoc general_update = Update(value, second, m_first, true);
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
            EXPECT_EQ(a.value().doc.ToJson(), b.value().doc.ToJson());
            EXPECT_TRUE(a.value().doc.size() == b.value().doc.size() &&
                        std::memcmp(a.value().doc.data(), b.value().doc.data(), a.value().doc.size()) == 0);
            EXPECT_EQ(a.value().modified, b.value().modified);
            std::optional<InPlaceSet> plan = InPlaceSet::Plan(fast_update.get());
            BsonDoc out;
            bool modified = false;
            if (plan && plan->Apply(doc.get(), &out, &modified)) {
              ++in_place_answers;
              unmodified_answers += modified ? 0 : 1;
            }
          }
        }
      }
    }
  }
  // The comparison did exercise the in-place path, no-ops included.
  EXPECT_GT(in_place_answers, 500);
  EXPECT_GT(unmodified_answers, 10);
}

TEST(InPlaceSetTest, DeclinesWhatTheGeneralPathMustDo) {
  auto applies = [](const char* doc_json, const char* update_json) {
    const BsonDoc doc = BsonDoc::FromJson(doc_json);
    const BsonDoc update = BsonDoc::FromJson(update_json);
    std::optional<InPlaceSet> plan = InPlaceSet::Plan(update.get());
    EXPECT_TRUE(plan.has_value()) << update_json;
    BsonDoc out;
    bool modified = false;
    return plan && plan->Apply(doc.get(), &out, &modified);
  };
  EXPECT_TRUE(applies(R"({"_id": 1, "a": 1, "b": 2})", R"({"$set": {"a": 2}})"));
  EXPECT_FALSE(applies(R"({"_id": 1, "b": 2})", R"({"$set": {"a": 2}})"));  // appended
  EXPECT_FALSE(applies(R"({"_id": 1, "a": 1, "a": 2})", R"({"$set": {"a": 2}})"));
  EXPECT_FALSE(applies(R"({"_id": [1], "a": 1})", R"({"$set": {"a": 2}})"));
  EXPECT_FALSE(applies(R"({"_id": 1, "a": 1, "x": {"r": {"$regularExpression": {"pattern": "a", "options": "i"}}}})",
                       R"({"$set": {"a": 2}})"));
  EXPECT_TRUE(applies(R"({"_id": 1, "a": 1, "x": {"y": [1, {"z": [2]}]}})", R"({"$set": {"a": 2}})"));
}

// A plannable $set builds its update tree only when a document declines the
// in-place path (UpdateDriver::Parse): declined documents, upsert inserts
// and parse errors must be the general path's all the same.
TEST(InPlaceSetTest, DeferredUpdateTreeServesDeclinedDocumentsUpsertsAndErrors) {
  auto apply = [](const char* update_json, const char* doc_json, bool upsert) {
    const BsonDoc update = BsonDoc::FromJson(update_json);
    auto driver = UpdateDriver::Parse(update.get());
    EXPECT_TRUE(driver.ok()) << driver.status().ToString();
    auto out = driver.value().Apply(BsonDoc::FromJson(doc_json).get(), upsert);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.value().doc.ToJson();
  };
  // Missing fields are appended in field-name order, as the tree does.
  EXPECT_EQ(apply(R"({"$set": {"b": 2, "a": 1}})", R"({"_id": 1, "c": 3})", false),
            BsonDoc::FromJson(R"({"_id": 1, "c": 3, "a": 1, "b": 2})").ToJson());
  EXPECT_EQ(apply(R"({"$set": {"a": 1}})", R"({"_id": 7})", true),
            BsonDoc::FromJson(R"({"_id": 7, "a": 1})").ToJson());
  // arrayFilters the update does not use are still refused.
  const BsonDoc update = BsonDoc::FromJson(R"({"$set": {"a": 1}})");
  const BsonDoc filters = BsonDoc::FromJson(R"({"0": {"x": 1}})");
  auto refused = UpdateDriver::Parse(update.get(), filters.get());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::kFailedToParse);
}

TEST(InPlaceSetTest, PlansOnlyPlainTopLevelSets) {
  auto plan = [](const char* json) {
    const BsonDoc update = BsonDoc::FromJson(json);
    return InPlaceSet::Plan(update.get()).has_value();
  };
  EXPECT_TRUE(plan(R"({"$set": {"field3": "x"}})"));
  EXPECT_TRUE(plan(R"({"$set": {"a": 1, "b": {"c": [1, 2]}, "d": null}})"));
  EXPECT_FALSE(plan(R"({"$set": {"a.b": 1}})"));
  EXPECT_FALSE(plan(R"({"$set": {"a.$": 1}})"));
  EXPECT_FALSE(plan(R"({"$set": {"a.0": 1}})"));
  EXPECT_FALSE(plan(R"({"$set": {"_id": 1}})"));
  EXPECT_FALSE(plan(R"({"$set": {"$x": 1}})"));
  EXPECT_FALSE(plan(R"({"$set": {"n": 1}, "$inc": {"m": 1}})"));
  EXPECT_FALSE(plan(R"({"$setOnInsert": {"n": 1}})"));
  EXPECT_FALSE(plan(R"({"$inc": {"n": 1}})"));
  // A regex's flags are re-sorted by the general path: not spliced as sent.
  EXPECT_FALSE(plan(R"({"$set": {"r": {"$regularExpression": {"pattern": "a", "options": "xi"}}}})"));
  EXPECT_FALSE(plan(R"({"$set": {"d": {"r": {"$regularExpression": {"pattern": "a", "options": "i"}}}}})"));
  EXPECT_TRUE(plan(R"({"$set": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1}})"));
  EXPECT_FALSE(plan(R"({"$set": {"a": 1, "b": 1, "c": 1, "d": 1, "e": 1, "f": 1, "g": 1, "h": 1, "i": 1}})"));
}

}  // namespace
}  // namespace tigerdoc::update
