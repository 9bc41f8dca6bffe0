// The examples of MongoDB's manual pages "Query an Array", "Query on
// Embedded/Nested Documents", "Query an Array of Embedded Documents" and
// "Query for Null or Missing Fields": each row is the page's collection,
// one of its filters, and the documents the page says it returns.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/query/matcher/matcher.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::query {
namespace {

using bson::BsonDoc;

// Documents are named by position in their collection.
const std::vector<const char*> kArrays = {
    R"({"item": "journal", "qty": 25, "tags": ["blank", "red"], "dim_cm": [14, 21]})",
    R"({"item": "notebook", "qty": 50, "tags": ["red", "blank"], "dim_cm": [14, 21]})",
    R"({"item": "paper", "qty": 100, "tags": ["red", "blank", "plain"], "dim_cm": [14, 21]})",
    R"({"item": "planner", "qty": 75, "tags": ["blank", "red"], "dim_cm": [22.85, 30]})",
    R"({"item": "postcard", "qty": 45, "tags": ["blue"], "dim_cm": [10, 15.25]})"};

const std::vector<const char*> kEmbedded = {
    R"({"item": "journal", "qty": 25, "size": {"h": 14, "w": 21, "uom": "cm"}, "status": "A"})",
    R"({"item": "notebook", "qty": 50, "size": {"h": 8.5, "w": 11, "uom": "in"}, "status": "A"})",
    R"({"item": "paper", "qty": 100, "size": {"h": 8.5, "w": 11, "uom": "in"}, "status": "D"})",
    R"({"item": "planner", "qty": 75, "size": {"h": 22.85, "w": 30, "uom": "cm"}, "status": "D"})",
    R"({"item": "postcard", "qty": 45, "size": {"h": 10, "w": 15.25, "uom": "cm"}, "status": "A"})"};

const std::vector<const char*> kArrayOfDocuments = {
    R"({"item": "journal", "instock": [{"warehouse": "A", "qty": 5}, {"warehouse": "C", "qty": 15}]})",
    R"({"item": "notebook", "instock": [{"warehouse": "C", "qty": 5}]})",
    R"({"item": "paper", "instock": [{"warehouse": "A", "qty": 60}, {"warehouse": "B", "qty": 15}]})",
    R"({"item": "planner", "instock": [{"warehouse": "A", "qty": 40}, {"warehouse": "B", "qty": 5}]})",
    R"({"item": "postcard", "instock": [{"warehouse": "B", "qty": 15}, {"warehouse": "C", "qty": 35}]})"};

const std::vector<const char*> kNullOrMissing = {R"({"_id": 1, "item": null})", R"({"_id": 2})"};

struct ExampleCase {
  const std::vector<const char*>* collection;
  const char* filter;
  std::vector<int> returned;  // positions in the collection
};

void PrintTo(const ExampleCase& c, std::ostream* os) { *os << c.filter; }

class ManualExampleTest : public testing::TestWithParam<ExampleCase> {};

TEST_P(ManualExampleTest, ReturnsWhatTheManualShows) {
  const ExampleCase& c = GetParam();
  BsonDoc filter = testing_json::Json(c.filter);
  auto matcher = Matcher::Parse(filter.get());
  ASSERT_TRUE(matcher.ok()) << matcher.status().ToString();
  std::vector<int> returned;
  for (size_t i = 0; i < c.collection->size(); ++i) {
    BsonDoc doc = BsonDoc::FromJson((*c.collection)[i]);
    if (matcher.value()->Matches(doc.get())) returned.push_back(static_cast<int>(i));
  }
  EXPECT_EQ(returned, c.returned);
}

INSTANTIATE_TEST_SUITE_P(QueryAnArray, ManualExampleTest, testing::Values(
    ExampleCase{&kArrays, R"({"tags": ["red", "blank"]})", {1}},
    ExampleCase{&kArrays, R"({"tags": {"$all": ["red", "blank"]}})", {0, 1, 2, 3}},
    ExampleCase{&kArrays, R"({"tags": "red"})", {0, 1, 2, 3}},
    ExampleCase{&kArrays, R"({"dim_cm": {"$gt": 25}})", {3}},
    ExampleCase{&kArrays, R"({"dim_cm": {"$gt": 15, "$lt": 20}})", {0, 1, 2, 4}},
    ExampleCase{&kArrays, R"({"dim_cm": {"$elemMatch": {"$gt": 22, "$lt": 30}}})", {3}},
    ExampleCase{&kArrays, R"({"dim_cm.1": {"$gt": 25}})", {3}},
    ExampleCase{&kArrays, R"({"tags": {"$size": 3}})", {2}}));

INSTANTIATE_TEST_SUITE_P(QueryOnEmbeddedDocuments, ManualExampleTest, testing::Values(
    ExampleCase{&kEmbedded, R"({"size": {"h": 14, "w": 21, "uom": "cm"}})", {0}},
    ExampleCase{&kEmbedded, R"({"size": {"w": 21, "h": 14, "uom": "cm"}})", {}},
    ExampleCase{&kEmbedded, R"({"size.uom": "in"})", {1, 2}},
    ExampleCase{&kEmbedded, R"({"size.h": {"$lt": 15}})", {0, 1, 2, 4}},
    ExampleCase{&kEmbedded, R"({"size.h": {"$lt": 15}, "size.uom": "in", "status": "D"})", {2}}));

INSTANTIATE_TEST_SUITE_P(QueryAnArrayOfEmbeddedDocuments, ManualExampleTest, testing::Values(
    ExampleCase{&kArrayOfDocuments, R"({"instock": {"warehouse": "A", "qty": 5}})", {0}},
    ExampleCase{&kArrayOfDocuments, R"({"instock": {"qty": 5, "warehouse": "A"}})", {}},
    ExampleCase{&kArrayOfDocuments, R"({"instock.0.qty": {"$lte": 20}})", {0, 1, 4}},
    ExampleCase{&kArrayOfDocuments, R"({"instock.qty": {"$lte": 20}})", {0, 1, 2, 3, 4}},
    ExampleCase{&kArrayOfDocuments,
                R"({"instock": {"$elemMatch": {"qty": 5, "warehouse": "A"}}})", {0}},
    ExampleCase{&kArrayOfDocuments,
                R"({"instock": {"$elemMatch": {"qty": {"$gt": 10, "$lte": 20}}}})", {0, 2, 4}},
    ExampleCase{&kArrayOfDocuments, R"({"instock.qty": {"$gt": 10, "$lte": 20}})", {0, 2, 3, 4}},
    ExampleCase{&kArrayOfDocuments, R"({"instock.qty": 5, "instock.warehouse": "A"})", {0, 3}}));

INSTANTIATE_TEST_SUITE_P(QueryForNullOrMissingFields, ManualExampleTest, testing::Values(
    ExampleCase{&kNullOrMissing, R"({"item": null})", {0, 1}},
    ExampleCase{&kNullOrMissing, R"({"item": {"$ne": null}})", {}},
    ExampleCase{&kNullOrMissing, R"({"item": {"%type": 10}})", {0}},
    ExampleCase{&kNullOrMissing, R"({"item": {"%type": "null"}})", {0}},
    ExampleCase{&kNullOrMissing, R"({"item": {"$exists": false}})", {1}},
    ExampleCase{&kNullOrMissing, R"({"item": {"$in": [null]}})", {0, 1}},
    ExampleCase{&kNullOrMissing, R"({"item": {"$nin": [null]}})", {}}));

}  // namespace
}  // namespace tigerdoc::query
