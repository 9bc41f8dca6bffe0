#pragma once
// Helpers for the update tables: each row is an update (extended JSON, '%'
// for '$' in keys, see tests/engine/query/test_json.h), the document it
// applies to, optional arrayFilters and query (whose matched array position
// the positional '$' stands for), and MongoDB's result or error.
// Documents compare byte for byte, so field order and numeric types are
// part of the specification.

#include <gtest/gtest.h>

#include <optional>
#include <ostream>
#include <string>

#include "engine/bson/bson_doc.h"
#include "engine/bson/field_path.h"
#include "engine/query/matcher/matcher.h"
#include "engine/update/update_driver.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::update::testing_update {

struct Case {
  const char* update;
  const char* doc;
  const char* expected;
  bool modified;
  const char* array_filters = nullptr;  // a JSON array, or none
  const char* query = nullptr;          // gives '$' its position, or none
};

inline void PrintTo(const Case& c, std::ostream* os) {
  *os << c.update << " on " << c.doc;
  if (c.array_filters) *os << " arrayFilters " << c.array_filters;
  if (c.query) *os << " query " << c.query;
}

struct ErrorCase {
  const char* update;
  const char* doc;  // nullptr: the error is at parse time
  int code;
  const char* message;  // nullptr: only the code is checked
  const char* array_filters = nullptr;
  const char* query = nullptr;
};

inline void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.update;
  if (c.doc) *os << " on " << c.doc;
  if (c.array_filters) *os << " arrayFilters " << c.array_filters;
}

// A JSON array as libbson holds a BSON array: a document keyed "0", "1", ...
inline bson::BsonDoc JsonArray(const char* json_array) {
  bson::BsonDoc wrapper = testing_json::Json(std::string("{\"a\": ") + json_array + "}");
  bson_iter_t it;
  bson_iter_init_find(&it, wrapper.get(), "a");
  bson_t view;
  bson::OpenSubdocument(&it, &view);
  return bson::BsonDoc::CopyOf(&view);
}

inline StatusWith<UpdateDriver> ParseJson(const char* update, const char* array_filters) {
  bson::BsonDoc u = testing_json::Json(update);
  if (array_filters == nullptr) return UpdateDriver::Parse(u.get());
  bson::BsonDoc filters = JsonArray(array_filters);
  return UpdateDriver::Parse(u.get(), filters.get());
}

// The position the query matched through an array, as the engine passes
// it: MatchDetails' elemMatchKey. The query must match.
inline std::optional<size_t> MatchedPosition(const char* query, const bson_t* doc) {
  if (query == nullptr) return std::nullopt;
  bson::BsonDoc filter = testing_json::Json(query);
  auto matcher = query::Matcher::Parse(filter.get());
  EXPECT_TRUE(matcher.ok()) << matcher.status().ToString();
  if (!matcher.ok()) return std::nullopt;
  query::MatchDetails details;
  EXPECT_TRUE(matcher.value()->Matches(doc, &details)) << "the query does not match";
  return details.elem_match_index();
}

inline void ExpectApplies(const Case& c) {
  auto driver = ParseJson(c.update, c.array_filters);
  ASSERT_TRUE(driver.ok()) << driver.status().ToString();
  bson::BsonDoc doc = testing_json::Json(c.doc);
  auto result = driver.value().Apply(doc.get(), /*is_upsert_insert=*/false,
                                     MatchedPosition(c.query, doc.get()));
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  bson::BsonDoc expected = testing_json::Json(c.expected);
  EXPECT_TRUE(bson_equal(result.value().doc.get(), expected.get()))
      << "got " << result.value().doc.ToJson() << " want " << expected.ToJson();
  EXPECT_EQ(result.value().modified, c.modified);
}

inline void ExpectFails(const ErrorCase& c) {
  auto driver = ParseJson(c.update, c.array_filters);
  Status status;
  if (c.doc == nullptr) {
    ASSERT_FALSE(driver.ok()) << "parsed";
    status = driver.status();
  } else {
    ASSERT_TRUE(driver.ok()) << driver.status().ToString();
    bson::BsonDoc doc = testing_json::Json(c.doc);
    auto result = driver.value().Apply(doc.get(), false, MatchedPosition(c.query, doc.get()));
    ASSERT_FALSE(result.ok()) << result.value().doc.ToJson();
    status = result.status();
  }
  EXPECT_EQ(status.code_number(), c.code) << status.ToString();
  if (c.message) {
    EXPECT_EQ(status.reason(), c.message);
  }
}

}  // namespace tigerdoc::update::testing_update
