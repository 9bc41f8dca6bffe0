#pragma once
// TextIndexE2eTest: E2eTest plus what the $text suites (text_search_test,
// text_index_scan_test) share: creating a collection's text index.

#include <string>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {

class TextIndexE2eTest : public E2eTest {
 protected:
  // Creates the index "text" on `key_json`; `options_json` (e.g.
  // `"weights": {...}`) continues its spec.
  void CreateTextIndex(const std::string& coll, const std::string& key_json,
                       const std::string& options_json = "") {
    BsonDoc reply = Run("{\"createIndexes\": \"" + coll + "\", \"indexes\": [{\"key\": " + key_json +
                        ", \"name\": \"text\"" + (options_json.empty() ? "" : ", " + options_json) +
                        "}]}");
    ASSERT_OK_REPLY(reply);
  }
};

}  // namespace tigerdoc::e2e
