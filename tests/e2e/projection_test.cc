// Projection operators through find and findAndModify: positional $,
// $elemMatch and $slice, with MongoDB's documented results and errors.
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::SubDoc;

class ProjectionTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    // MongoDB's "Project Specific Array Elements" example data.
    InsertJson("students", R"([
      {"_id": 1, "semester": 1, "grades": [70, 87, 90]},
      {"_id": 2, "semester": 1, "grades": [90, 88, 92]},
      {"_id": 3, "semester": 1, "grades": [85, 100, 90]},
      {"_id": 4, "semester": 2, "grades": [79, 85, 80]}])");
  }
  std::vector<std::string> Find(const std::string& filter, const std::string& projection) {
    BsonDoc r = Run(R"({"find": "students", "filter": )" + filter + R"(, "projection": )" +
                    projection + R"(, "sort": {"_id": 1}})");
    EXPECT_TRUE(testutil::IsOk(r)) << Json(r);
    std::vector<std::string> out;
    for (const auto& d : DocArray(r, "cursor.firstBatch")) out.push_back(CanonicalJson(d));
    return out;
  }
};

TEST_F(ProjectionTest, PositionalReturnsFirstMatchedElement) {
  EXPECT_EQ(Find(R"({"semester": 1, "grades": {"$gte": 85}})", R"({"grades.$": 1})"),
            (std::vector<std::string>{CanonicalJson(R"({"_id": 1, "grades": [87]})"),
                                      CanonicalJson(R"({"_id": 2, "grades": [90]})"),
                                      CanonicalJson(R"({"_id": 3, "grades": [85]})")}));
}

TEST_F(ProjectionTest, SliceAndElemMatch) {
  EXPECT_EQ(Find(R"({"_id": 4})", R"({"grades": {"$slice": -2}})"),
            (std::vector<std::string>{CanonicalJson(R"({"_id": 4, "semester": 2, "grades": [85, 80]})")}));
  EXPECT_EQ(Find(R"({"_id": 3})", R"({"grades": {"$elemMatch": {"$gt": 95}}})"),
            (std::vector<std::string>{CanonicalJson(R"({"_id": 3, "grades": [100]})")}));
}

TEST_F(ProjectionTest, MixingInclusionAndExclusionFails) {
  BsonDoc r = Run(R"({"find": "students", "projection": {"semester": 1, "grades": 0}})");
  EXPECT_EQ(Integer(r, "code"), 31254) << Json(r);
}

TEST_F(ProjectionTest, FindAndModifyProjectsPositionally) {
  BsonDoc r = Run(R"({"findAndModify": "students", "query": {"_id": 2, "grades": 88},
                      "update": {"$set": {"seen": true}}, "fields": {"grades.$": 1}})");
  ASSERT_OK_REPLY(r);
  EXPECT_EQ(CanonicalJson(SubDoc(r, "value")), CanonicalJson(R"({"_id": 2, "grades": [88]})"));
}

}  // namespace
}  // namespace tigerdoc::e2e
