// Pipeline-style updates (UpdateDriver::ParsePipeline): the manual's
// examples ("Updates with Aggregation Pipeline") and MongoDB's errors.

#include <gtest/gtest.h>

#include "engine/update/update_driver.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::update {
namespace {

bson::BsonDoc J(const std::string& json) { return testing_json::Json(json); }

// `pipeline_json` is a JSON array; libbson reads it as a document with
// keys "0", "1", ...
StatusWith<UpdateDriver> Parse(const std::string& pipeline_json,
                               const agg::ExpressionContext& ctx = agg::ExpressionContext(),
                               const bson_t* array_filters = nullptr) {
  bson::BsonDoc wrapper = J("{\"p\": " + pipeline_json + "}");
  bson_iter_t it;
  bson_iter_init_find(&it, wrapper.get(), "p");
  uint32_t len;
  const uint8_t* data;
  bson_iter_array(&it, &len, &data);
  bson::BsonDoc pipeline = bson::BsonDoc::CopyOf(data, len);
  return UpdateDriver::ParsePipeline(pipeline.get(), array_filters, ctx);
}

void ExpectApplies(const std::string& pipeline, const std::string& doc, const std::string& expected,
                   bool modified = true) {
  agg::ExpressionContext ctx;
  ctx.now_millis = 1700000000000;
  ctx.variables.emplace_back("v", agg::Value::Int(10));
  auto driver = Parse(pipeline, ctx);
  ASSERT_TRUE(driver.ok()) << driver.status().ToString();
  EXPECT_TRUE(driver.value().is_pipeline());
  EXPECT_FALSE(driver.value().is_replacement());
  auto out = driver.value().Apply(J(doc).get(), false);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  bson::BsonDoc want = J(expected);
  EXPECT_TRUE(bson_equal(out.value().doc.get(), want.get()))
      << pipeline << " gave " << out.value().doc.ToJson() << ", expected " << want.ToJson();
  EXPECT_EQ(out.value().modified, modified);
}

TEST(PipelineUpdateTest, SetAndUnsetFromTheManual) {
  // db.students.updateOne({_id: 3}, [{$set: {test3: 98, modified: "$$NOW"}}])
  ExpectApplies(R"([{"%set": {"test3": 98, "modified": "$$NOW"}}])",
                R"({"_id": 3, "test1": 95, "test2": 83})",
                R"({"_id": 3, "test1": 95, "test2": 83, "test3": 98,
                    "modified": {"$date": {"$numberLong": "1700000000000"}}})");
  // [{$replaceRoot: {newRoot: {$mergeObjects: [{quiz1: 0, quiz2: 0}, "$$ROOT"]}}},
  //  {$set: {modified: "$$NOW"}}] (the students2 example, $$NOW left out)
  ExpectApplies(R"([{"%replaceRoot": {"newRoot": {"%mergeObjects": [{"quiz1": 0, "quiz2": 0}, "$$ROOT"]}}}])",
                R"({"_id": 1, "quiz1": 8})", R"({"quiz1": 8, "quiz2": 0, "_id": 1})");
  ExpectApplies(R"([{"%unset": ["a", "b.c"]}])", R"({"_id": 1, "a": 1, "b": {"c": 2, "d": 3}})",
                R"({"_id": 1, "b": {"d": 3}})");
}

TEST(PipelineUpdateTest, ProjectReplaceWithAndVariables) {
  ExpectApplies(R"([{"%project": {"total": {"%add": ["$a", "$$v"]}}}])", R"({"_id": 1, "a": 1})",
                R"({"_id": 1, "total": 11})");
  // _id kept when the output has none.
  ExpectApplies(R"([{"%replaceWith": {"x": "$a"}}])", R"({"_id": 1, "a": 1})",
                R"({"_id": 1, "x": 1})");
  ExpectApplies(R"([{"%set": {"a": 1}}])", R"({"_id": 1, "a": 1})", R"({"_id": 1, "a": 1})",
                /*modified=*/false);
  // Conditional update (the manual's grades example).
  ExpectApplies(R"([{"%set": {"grade": {"%switch": {"branches": [
                      {"case": {"%gte": ["$average", 90]}, "then": "A"},
                      {"case": {"%gte": ["$average", 80]}, "then": "B"}], "default": "F"}}}}])",
                R"({"_id": 1, "average": 92})", R"({"_id": 1, "average": 92, "grade": "A"})");
}

TEST(PipelineUpdateTest, UpsertInsertRunsOverTheSeed) {
  auto driver = Parse(R"([{"%set": {"n": {"%add": ["$k", 1]}}}])");
  ASSERT_TRUE(driver.ok());
  auto out = driver.value().Apply(J(R"({"_id": 5, "k": 1})").get(), true);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(bson_equal(out.value().doc.get(), J(R"({"_id": 5, "k": 1, "n": 2})").get()));
}

TEST(PipelineUpdateTest, ErrorsAsMongoDB) {
  struct Case {
    const char* pipeline;
    int code;
    const char* message;
  } cases[] = {
      {R"([{"%match": {"a": 1}}])", 72, "$match is not allowed to be used within an update"},
      {R"([{"%set": {"a": 1}}, {"%group": {"_id": null}}])", 72,
       "$group is not allowed to be used within an update"},
      {R"([{"%lookup": {"from": "x", "localField": "a", "foreignField": "b", "as": "c"}}])", 72,
       "$lookup is not allowed to be used within an update"},
      {R"([{"%nope": {}}])", 40324, "Unrecognized pipeline stage name: '$nope'"},
      {R"([{"%set": {"a": {"%foo": 1}}}])", 168, nullptr},
  };
  for (const Case& c : cases) {
    auto driver = Parse(c.pipeline);
    ASSERT_FALSE(driver.ok()) << c.pipeline;
    EXPECT_EQ(driver.status().code_number(), c.code) << c.pipeline << ": " << driver.status().ToString();
    if (c.message) EXPECT_EQ(driver.status().reason(), c.message);
  }
  bson::BsonDoc filters = J(R"({"0": {"x": 1}})");
  auto with_filters = Parse(R"([{"%set": {"a": 1}}])", agg::ExpressionContext(), filters.get());
  ASSERT_FALSE(with_filters.ok());
  EXPECT_EQ(with_filters.status().code_number(), 9);
  EXPECT_EQ(with_filters.status().reason(), "arrayFilters may not be specified for pipeline-style updates");

  auto changes_id = Parse(R"([{"%set": {"_id": 2}}])");
  ASSERT_TRUE(changes_id.ok());
  auto applied = changes_id.value().Apply(J(R"({"_id": 1})").get(), false);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.status().code_number(), 66);
}

}  // namespace
}  // namespace tigerdoc::update
