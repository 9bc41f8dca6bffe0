#pragma once
// IndexQueryE2eTest: E2eTest plus the helpers index query suites share:
// createIndexes, a find read to its end through getMores, the same sorted
// (to compare an index's answer with a collection scan's), and explain of a
// find with executionStats.

#include <algorithm>
#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {

class IndexQueryE2eTest : public E2eTest {
 protected:
  // The createIndexes reply for one index spec (JSON).
  BsonDoc CreateIndex(const std::string& coll, const std::string& spec) {
    return Run(R"({"createIndexes": ")" + coll + R"(", "indexes": [)" + spec + "]}");
  }

  // Every document of a find, first batch and getMores of `batch_size`, as
  // canonical JSON in the server's order. `extra` continues the command
  // (`, "hint": ...`). batch_size 0 leaves the first batch at the server's
  // default (101) and getMores unlimited.
  std::vector<std::string> FindAll(const std::string& coll, const std::string& filter,
                                   const std::string& extra = "", int batch_size = 7) {
    const std::string batch =
        batch_size > 0 ? R"(, "batchSize": )" + std::to_string(batch_size) : std::string();
    BsonDoc r = Run(R"({"find": ")" + coll + R"(", "filter": )" + filter + batch + extra + "}");
    EXPECT_OK_REPLY(r);
    std::vector<std::string> out;
    for (const auto& d : testutil::DocArray(r, "cursor.firstBatch")) out.push_back(testutil::Json(d));
    int64_t id = testutil::Integer(r, "cursor.id").value_or(0);
    while (id != 0) {
      BsonDoc more = GetMore(id, coll, batch_size);
      EXPECT_OK_REPLY(more);
      for (const auto& d : testutil::DocArray(more, "cursor.nextBatch")) {
        out.push_back(testutil::Json(d));
      }
      id = testutil::Integer(more, "cursor.id").value_or(0);
    }
    return out;
  }

  // FindAll sorted: equal for any two plans that find the same documents.
  std::vector<std::string> SortedFind(const std::string& coll, const std::string& filter,
                                      const std::string& extra = "", int batch_size = 7) {
    std::vector<std::string> v = FindAll(coll, filter, extra, batch_size);
    std::sort(v.begin(), v.end());
    return v;
  }

  // explain of {find: coll, <find_args>} at executionStats verbosity.
  BsonDoc Explain(const std::string& coll, const std::string& find_args) {
    BsonDoc r = Run(R"({"explain": {"find": ")" + coll + R"(", )" + find_args +
                    R"(}, "verbosity": "executionStats"})");
    EXPECT_OK_REPLY(r);
    return r;
  }
};

}  // namespace tigerdoc::e2e
