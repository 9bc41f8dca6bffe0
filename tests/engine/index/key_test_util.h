// Helpers the index key tests share: an IndexSpec parsed from its JSON (a
// parse failure fails the test), a document's generated keys, and those
// keys rendered as their values documents in key order.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "engine/bson/shell_string.h"
#include "engine/index/index_spec.h"
#include "engine/index/key_generator.h"

namespace tigerdoc::index::keytest {

inline IndexSpec Spec(std::string_view json) {
  auto spec = ParseIndexSpec(bson::BsonDoc::FromJson(json).get());
  EXPECT_TRUE(spec.ok()) << json << ": " << spec.status().ToString();
  return std::move(spec).value();
}

// The document's keys; none (and a test failure) when generation fails.
inline DocumentKeys KeysOf(const IndexSpec& spec, std::string_view doc_json) {
  auto keys = GenerateKeys(spec, bson::BsonDoc::FromJson(doc_json).get());
  EXPECT_TRUE(keys.ok()) << keys.status().ToString();
  return keys.ok() ? std::move(keys).value() : DocumentKeys{};
}

inline std::vector<std::string> Rendered(const DocumentKeys& keys) {
  std::vector<std::string> out;
  for (const IndexKey& key : keys.keys) out.push_back(bson::ToShellString(key.values.get()));
  return out;
}

inline std::vector<std::string> Keys(const IndexSpec& spec, std::string_view doc_json) {
  return Rendered(KeysOf(spec, doc_json));
}

}  // namespace tigerdoc::index::keytest
