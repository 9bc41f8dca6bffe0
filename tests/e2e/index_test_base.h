#pragma once
// IndexE2eTest: E2eTest with a server whose TTL monitor runs every second,
// plus helpers for index commands.

#include <string>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {

class IndexE2eTest : public E2eTest {
 protected:
  static void SetUpTestSuite() { StartServer({"--setParameter", "ttlMonitorSleepSecs=1"}); }

  BsonDoc CreateIndexes(const std::string& coll, const std::string& specs_json) {
    return Run(R"({"createIndexes": ")" + coll + R"(", "indexes": )" + specs_json + "}");
  }

  // Index names in listIndexes order.
  std::vector<std::string> IndexNames(const std::string& coll) {
    BsonDoc r = Run(R"({"listIndexes": ")" + coll + R"("})");
    EXPECT_TRUE(testutil::IsOk(r)) << testutil::Json(r);
    std::vector<std::string> out;
    for (const auto& d : testutil::DocArray(r, "cursor.firstBatch")) {
      out.push_back(testutil::String(d, "name").value_or("?"));
    }
    return out;
  }

  int64_t Count(const std::string& coll, const std::string& filter = "{}") {
    BsonDoc r = Run(R"({"count": ")" + coll + R"(", "query": )" + filter + "}");
    EXPECT_TRUE(testutil::IsOk(r)) << testutil::Json(r);
    return testutil::Integer(r, "n").value_or(-1);
  }
};

}  // namespace tigerdoc::e2e
