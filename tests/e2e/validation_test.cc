// Schema validation end to end: a collection's validator, validationLevel
// and validationAction set by create and collMod, shown by listCollections,
// surviving a restart, and checked on every write path (insert, ordered and
// unordered batches, update with operators / replacement / pipeline /
// arrayFilters, upsert, findAndModify, $out, $merge), with
// bypassDocumentValidation; $jsonSchema as a query operator; several
// connections writing at once.

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::ArrayLength;
using testutil::CanonicalJson;
using testutil::Integer;
using testutil::Json;
using testutil::String;
using testutil::SubDoc;

// {a: int >= 0} and a required name.
constexpr char kSchema[] =
    R"({"$jsonSchema": {"bsonType": "object", "required": ["name"],
        "properties": {"name": {"bsonType": "string"}, "a": {"bsonType": "int", "minimum": 0}}}})";

class ValidationTest : public E2eTest {
 protected:
  void CreateValidated(const std::string& coll, const std::string& extra = "") {
    BsonDoc r = Run(R"({"create": ")" + coll + R"(", "validator": )" + kSchema + extra + "}");
    ASSERT_OK_REPLY(r);
  }
  int64_t Count(const std::string& coll, const std::string& filter = "{}") {
    BsonDoc r = Run(R"({"count": ")" + coll + R"(", "query": )" + filter + "}");
    EXPECT_OK_REPLY(r);
    return Integer(r, "n").value_or(-1);
  }
  BsonDoc Options(const std::string& coll) {
    BsonDoc r = Run(R"({"listCollections": 1, "filter": {"name": ")" + coll + R"("}})");
    EXPECT_OK_REPLY(r);
    return SubDoc(r, "cursor.firstBatch.0.options");
  }
};

#define EXPECT_VALIDATION_WRITE_ERROR(reply, index)                                   \
  do {                                                                                \
    const BsonDoc& r_ = (reply);                                                      \
    EXPECT_OK_REPLY(r_);                                                              \
    EXPECT_EQ(Integer(r_, "writeErrors.0.index"), (index)) << Json(r_);               \
    EXPECT_EQ(Integer(r_, "writeErrors.0.code"), 121) << Json(r_);                    \
    EXPECT_EQ(String(r_, "writeErrors.0.errmsg"), "Document failed validation") << Json(r_); \
    EXPECT_TRUE(testutil::Has(r_, "writeErrors.0.errInfo.failingDocumentId")) << Json(r_);   \
    EXPECT_TRUE(testutil::Has(r_, "writeErrors.0.errInfo.details.operatorName")) << Json(r_); \
  } while (0)

TEST_F(ValidationTest, InsertRefusesInvalidDocumentWithErrInfo) {
  CreateValidated("c");
  BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": 1, "name": "x", "a": -1}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
  EXPECT_EQ(Integer(r, "n"), 0);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "writeErrors.0.errInfo")), CanonicalJson(
      R"({"failingDocumentId": 1, "details": {"operatorName": "$jsonSchema",
          "schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [
            {"propertyName": "a", "details": [{"operatorName": "minimum",
              "specifiedAs": {"minimum": 0}, "reason": "comparison failed",
              "consideredValue": -1}]}]}]}})"));
  EXPECT_EQ(String(r, "writeErrors.0.codeName"), std::nullopt);  // as MongoDB: no codeName
  InsertJson("c", R"([{"_id": 2, "name": "y", "a": 3}])");
  EXPECT_EQ(Count("c"), 1);
}

TEST_F(ValidationTest, OrderedAndUnorderedBatchesReportPerStatement) {
  CreateValidated("c");
  BsonDoc ordered = Run(R"({"insert": "c", "documents": [{"_id": 1, "name": "a"},
      {"_id": 2}, {"_id": 3, "name": "c"}]})");
  EXPECT_VALIDATION_WRITE_ERROR(ordered, 1);
  EXPECT_EQ(Integer(ordered, "n"), 1);
  BsonDoc unordered = Run(R"({"insert": "c", "ordered": false, "documents": [{"_id": 4, "name": "a"},
      {"_id": 5}, {"_id": 6, "name": "c"}, {"_id": 7, "name": 1}]})");
  EXPECT_VALIDATION_WRITE_ERROR(unordered, 1);
  EXPECT_EQ(Integer(unordered, "n"), 2);
  EXPECT_EQ(ArrayLength(unordered, "writeErrors"), 2u);
  EXPECT_EQ(Integer(unordered, "writeErrors.1.index"), 3);
  EXPECT_EQ(Count("c"), 3);
}

TEST_F(ValidationTest, EveryUpdateFormIsChecked) {
  CreateValidated("c");
  InsertJson("c", R"([{"_id": 1, "name": "x", "a": 1, "t": [1, 2]}])");
  // Operator update.
  BsonDoc r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": -5}}}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
  EXPECT_EQ(Integer(r, "nModified"), 0);
  // Replacement.
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"a": 2}}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
  // Pipeline update.
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": [{"$unset": "name"}]}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
  // arrayFilters: the update itself is fine; the schema below forbids it.
  ASSERT_OK_REPLY(Run(R"({"collMod": "c", "validator": {"$jsonSchema": {"properties":
      {"t": {"items": {"bsonType": "int", "maximum": 5}}}}}})"));
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"t.$[e]": 9}},
      "arrayFilters": [{"e": 2}]}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"t.$[e]": 4}},
      "arrayFilters": [{"e": 2}]}]})");
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
  // Nothing else changed.
  EXPECT_EQ(Count("c", R"({"_id": 1, "name": "x", "a": 1, "t": [1, 4]})"), 1);
}

TEST_F(ValidationTest, UpsertChecksTheInsertedDocument) {
  CreateValidated("c");
  BsonDoc r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1}},
      "upsert": true}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1, "name": "n"}},
      "upsert": true}]})");
  EXPECT_OK_REPLY(r);
  EXPECT_FALSE(testutil::Has(r, "writeErrors")) << Json(r);
  EXPECT_EQ(Count("c"), 1);
}

TEST_F(ValidationTest, FindAndModifyFailsWith121) {
  CreateValidated("c");
  InsertJson("c", R"([{"_id": 1, "name": "x", "a": 1}])");
  BsonDoc r = Run(R"({"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"a": -1}}})");
  EXPECT_ERROR_REPLY(r, 121, "DocumentValidationFailure");
  EXPECT_EQ(String(r, "errmsg"), "Document failed validation");
  EXPECT_EQ(String(r, "errInfo.details.operatorName"), "$jsonSchema") << Json(r);
  r = Run(R"({"findAndModify": "c", "query": {"_id": 2}, "update": {"$set": {"a": 1}},
      "upsert": true})");
  EXPECT_ERROR_REPLY(r, 121, "DocumentValidationFailure");
  r = Run(R"({"findAndModify": "c", "query": {"_id": 1}, "update": {"$set": {"a": -1}},
      "bypassDocumentValidation": true, "new": true})");
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "value.a"), -1) << Json(r);
}

TEST_F(ValidationTest, BypassDocumentValidationOnInsertAndUpdate) {
  CreateValidated("c");
  BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": 1}], "bypassDocumentValidation": true})");
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(Integer(r, "n"), 1) << Json(r);
  r = Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": -3}}}],
      "bypassDocumentValidation": true})");
  EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
  EXPECT_EQ(Count("c", R"({"a": -3})"), 1);
}

TEST_F(ValidationTest, OutAndMergeIntoAValidatedCollection) {
  InsertJson("src", R"([{"_id": 1, "name": "ok", "a": 1}, {"_id": 2, "a": 2}])");
  CreateValidated("dst");
  InsertJson("dst", R"([{"_id": 9, "name": "kept"}])");
  BsonDoc r = Run(R"({"aggregate": "src", "pipeline": [{"$out": "dst"}], "cursor": {}})");
  EXPECT_ERROR_REPLY(r, 121, "DocumentValidationFailure");
  EXPECT_EQ(Count("dst"), 1);  // $out replaced nothing
  r = Run(R"({"aggregate": "src", "pipeline": [{"$merge": {"into": "dst"}}], "cursor": {}})");
  EXPECT_ERROR_REPLY(r, 121, "DocumentValidationFailure");
  r = Run(R"({"aggregate": "src", "pipeline": [{"$match": {"name": {"$exists": true}}},
      {"$merge": {"into": "dst"}}], "cursor": {}})");
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(Count("dst"), 2);
  // $merge replacing a matched document with an invalid one.
  r = Run(R"({"aggregate": "src", "pipeline": [{"$match": {"_id": 1}}, {"$set": {"a": -1}},
      {"$merge": {"into": "dst", "whenMatched": "replace"}}], "cursor": {}})");
  EXPECT_ERROR_REPLY(r, 121, "DocumentValidationFailure");
  r = Run(R"({"aggregate": "src", "pipeline": [{"$out": "dst"}], "cursor": {},
      "bypassDocumentValidation": true})");
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(Count("dst"), 2);
  EXPECT_EQ(Count("dst", R"({"_id": 2})"), 1);
  // $out keeps the target's options.
  EXPECT_TRUE(testutil::Has(Options("dst"), "validator")) << Json(Options("dst"));
}

TEST_F(ValidationTest, ModerateLevelAsInTheManual) {
  // The manual's "Specify Validation Level for Existing Documents".
  InsertJson("contacts", R"([{"_id": 125876, "name": "Anne", "phone": "+1 555 123 456",
      "city": "London", "status": "Complete"},
      {"_id": 860000, "name": "Ivan", "city": "Vancouver"}])");
  ASSERT_OK_REPLY(Run(R"({"collMod": "contacts", "validator": {"$jsonSchema": {
      "bsonType": "object", "required": ["phone", "name"],
      "properties": {"phone": {"bsonType": "string"}, "name": {"bsonType": "string"}}}},
      "validationLevel": "moderate"})"));
  // The invalid document may be updated (it did not pass before).
  BsonDoc r = Run(R"({"update": "contacts", "updates": [{"q": {"_id": 860000},
      "u": {"$set": {"name": 10}}}]})");
  EXPECT_OK_REPLY(r);
  EXPECT_FALSE(testutil::Has(r, "writeErrors")) << Json(r);
  // The valid one may not become invalid.
  r = Run(R"({"update": "contacts", "updates": [{"q": {"_id": 125876},
      "u": {"$set": {"name": 10}}}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
  // strict: the invalid one is checked too.
  ASSERT_OK_REPLY(Run(R"({"collMod": "contacts", "validationLevel": "strict"})"));
  r = Run(R"({"update": "contacts", "updates": [{"q": {"_id": 860000},
      "u": {"$set": {"city": "Paris"}}}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
}

TEST_F(ValidationTest, LevelOffAndActionWarnLetWritesThrough) {
  CreateValidated("off", R"(, "validationLevel": "off")");
  InsertJson("off", R"([{"_id": 1}])");
  CreateValidated("warn", R"(, "validationAction": "warn")");
  InsertJson("warn", R"([{"_id": 1, "a": -1}])");
  EXPECT_NE(server_->LogTail(20000).find("Document would fail validation"), std::string::npos);
  EXPECT_EQ(Count("warn"), 1);
}

TEST_F(ValidationTest, ListCollectionsShowsTheOptionsAsGiven) {
  ASSERT_OK_REPLY(Run(R"({"create": "c", "validator": {"a": {"$gt": 1}},
      "validationLevel": "moderate", "validationAction": "warn"})"));
  EXPECT_EQ(CanonicalJson(Options("c")), CanonicalJson(
      R"({"validator": {"a": {"$gt": 1}}, "validationLevel": "moderate", "validationAction": "warn"})"));
  // collMod changes each alone, in place; new ones are appended.
  ASSERT_OK_REPLY(Run(R"({"collMod": "c", "validationAction": "error"})"));
  ASSERT_OK_REPLY(Run(R"({"collMod": "c", "validator": {"b": 1}})"));
  EXPECT_EQ(CanonicalJson(Options("c")), CanonicalJson(
      R"({"validator": {"b": 1}, "validationLevel": "moderate", "validationAction": "error"})"));
  ASSERT_OK_REPLY(Run(R"({"create": "d"})"));
  ASSERT_OK_REPLY(Run(R"({"collMod": "d", "validationLevel": "strict", "validator": {"x": 1}})"));
  EXPECT_EQ(CanonicalJson(Options("d")), CanonicalJson(R"({"validator": {"x": 1}, "validationLevel": "strict"})"));
  BsonDoc r = Run(R"({"insert": "d", "documents": [{"x": 2}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
}

TEST_F(ValidationTest, BadOptionsAreRefusedWithMongoDBsCodes) {
  EXPECT_ERROR_REPLY(Run(R"({"create": "c", "validationLevel": "lax"})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"create": "c", "validationAction": "ignore"})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"create": "c", "validator": 1})"), 14, "TypeMismatch");
  EXPECT_ERROR_REPLY(Run(R"({"create": "c", "validator": {"$where": "true"}})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"create": "c", "validator": {"loc": {"$near": [0, 0]}}})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"create": "c", "validator": {"$text": {"$search": "x"}}})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"create": "c", "validator": {"$jsonSchema": {"foo": 1}}})"), 9, "FailedToParse");
  EXPECT_ERROR_REPLY(Run(R"({"create": "c", "validator": {"$jsonSchema": {"type": "integer"}}})"), 9, "FailedToParse");
  BsonDoc r = Run(R"({"listCollections": 1})");
  EXPECT_EQ(ArrayLength(r, "cursor.firstBatch"), 0u) << Json(r);
  ASSERT_OK_REPLY(Run(R"({"create": "c"})"));
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "c", "validationLevel": 1})"), 14, "TypeMismatch");
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "c", "validator": {"a": {"$bad": 1}}})"), 2, "BadValue");
  EXPECT_ERROR_REPLY(Run(R"({"collMod": "missing", "validator": {}})"), 26, "NamespaceNotFound");
  EXPECT_TRUE(testutil::IsOk(Run(R"({"ping": 1})")));
}

TEST_F(ValidationTest, SettingsSurviveARestart) {
  CreateValidated("c");
  ASSERT_OK_REPLY(Run(R"({"collMod": "c", "validationLevel": "moderate"})"));
  const std::string before = CanonicalJson(Options("c"));
  RestartAndReconnect(Shutdown::kClean);
  EXPECT_EQ(CanonicalJson(Options("c")), before);
  BsonDoc r = Run(R"({"insert": "c", "documents": [{"_id": 1}]})");
  EXPECT_VALIDATION_WRITE_ERROR(r, 0);
}

TEST_F(ValidationTest, JsonSchemaAsAQueryOperator) {
  InsertJson("q", R"([{"_id": 1, "name": "a", "a": 1}, {"_id": 2, "name": 5}, {"_id": 3}])");
  const std::string filter = kSchema;
  BsonDoc r = Run(R"({"find": "q", "filter": )" + filter + "}");
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), std::vector<int64_t>({1}));
  EXPECT_EQ(Count("q", filter), 1);
  r = Run(R"({"aggregate": "q", "pipeline": [{"$match": {"$nor": [)" + filter + R"(]}}, {"$sort": {"_id": 1}}], "cursor": {}})");
  EXPECT_OK_REPLY(r);
  EXPECT_EQ(Ids(r), std::vector<int64_t>({2, 3}));
  r = Run(R"({"update": "q", "updates": [{"q": )" + filter + R"(, "u": {"$set": {"ok": true}}, "multi": true}]})");
  EXPECT_EQ(Integer(r, "nModified"), 1) << Json(r);
  r = Run(R"({"find": "q", "filter": {"$jsonSchema": {"bogus": 1}}})");
  EXPECT_ERROR_REPLY(r, 9, "FailedToParse");
  EXPECT_EQ(String(r, "errmsg"), "Unknown $jsonSchema keyword: bogus");
}

TEST_F(ValidationTest, SeveralConnectionsWriteAtOnce) {
  CreateValidated("c");
  constexpr int kThreads = 4;
  constexpr int kPerThread = 60;
  std::atomic<int> inserted{0}, refused{0}, other{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri());
      for (int i = 0; i < kPerThread; ++i) {
        const int id = t * 1000 + i;
        const std::string doc = i % 2 == 0 ? R"({"_id": )" + std::to_string(id) + R"(, "name": "v"})"
                                           : R"({"_id": )" + std::to_string(id) + R"(, "a": -1})";
        BsonDoc r = client.RunCommand(db_, R"({"insert": "c", "documents": [)" + doc + "]}");
        if (Integer(r, "n") == 1) {
          ++inserted;
        } else if (Integer(r, "writeErrors.0.code") == 121) {
          ++refused;
        } else {
          ++other;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(inserted.load(), kThreads * kPerThread / 2);
  EXPECT_EQ(refused.load(), kThreads * kPerThread / 2);
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(Count("c"), kThreads * kPerThread / 2);
}

}  // namespace
}  // namespace tigerdoc::e2e
