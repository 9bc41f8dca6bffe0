// RawFields and FindTopLevel against libbson, element by element, on
// documents of every type and on every single-byte change of them (valid or
// not): the fast walk never sees an element libbson would not, and
// FindTopLevel answers exactly as bson_iter_init_find.

#include "engine/bson/raw_fields.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::bson {
namespace {

struct Element {
  std::string key;
  uint32_t offset;
  uint32_t end;  // just past the value
  bson_type_t type;
};

std::vector<Element> LibbsonElements(const bson_t* doc) {
  std::vector<Element> out;
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return out;
  while (bson_iter_next(&it)) out.push_back({bson_iter_key(&it), bson_iter_offset(&it), it.next_off, bson_iter_type(&it)});
  return out;
}

void ExpectAgreesWithLibbson(const std::vector<uint8_t>& bytes, const std::string& what) {
  bson_t doc;
  if (!bson_init_static(&doc, bytes.data(), bytes.size())) return;  // not a bson_t at all
  const std::vector<Element> want = LibbsonElements(&doc);
  RawFields fields(&doc);
  size_t i = 0;
  while (fields.Next()) {
    ASSERT_LT(i, want.size()) << what;
    EXPECT_EQ(fields.key(), want[i].key) << what;
    EXPECT_EQ(fields.offset(), want[i].offset) << what;
    EXPECT_EQ(fields.end(), want[i].end) << what;
    EXPECT_EQ(fields.type(), want[i].type) << what;
    ++i;
  }
  if (!fields.broken()) {
    EXPECT_EQ(i, want.size()) << what;
  }
  // Every key libbson sees, and some it does not, found alike.
  std::vector<std::string> keys = {"", "absent", "s", "o", "t"};
  for (const Element& e : want) keys.push_back(e.key);
  for (const std::string& key : keys) {
    bson_iter_t fast, slow;
    const bool found = FindTopLevel(&doc, key, &fast);
    ASSERT_EQ(found, bson_iter_init_find(&slow, &doc, key.c_str())) << what << " key " << key;
    if (!found) continue;
    EXPECT_EQ(bson_iter_offset(&fast), bson_iter_offset(&slow)) << what << " key " << key;
    EXPECT_EQ(bson_iter_type(&fast), bson_iter_type(&slow)) << what << " key " << key;
    // Iterating on from the found element goes the same way.
    bool more_fast = bson_iter_next(&fast), more_slow = bson_iter_next(&slow);
    ASSERT_EQ(more_fast, more_slow) << what << " key " << key;
    if (more_fast) {
      EXPECT_EQ(bson_iter_offset(&fast), bson_iter_offset(&slow)) << what;
    }
  }
}

std::vector<uint8_t> BytesOf(const BsonDoc& doc) {
  return std::vector<uint8_t>(doc.data(), doc.data() + doc.size());
}

TEST(RawFieldsTest, AgreesWithLibbsonOnEveryByteChange) {
  std::vector<std::vector<uint8_t>> corpus = {
      BytesOf(BsonDoc::FromJson(R"json({
        "d": 1.5, "s": "x", "o": {"a": [1, {"b": null}]},
        "bin": {"$binary": {"base64": "AQI=", "subType": "00"}},
        "old": {"$binary": {"base64": "AQAAAAI=", "subType": "02"}},
        "u": {"$undefined": true}, "oid": {"$oid": "0123456789abcdef01234567"}, "t": true,
        "date": {"$date": {"$numberLong": "5"}},
        "re": {"$regularExpression": {"pattern": "a", "options": "i"}},
        "ptr": {"$dbPointer": {"$ref": "c", "$id": {"$oid": "0123456789abcdef01234567"}}},
        "code": {"$code": "f()"}, "sym": {"$symbol": "y"},
        "cws": {"$code": "g()", "$scope": {"z": 1}}, "i": 3,
        "ts": {"$timestamp": {"t": 1, "i": 2}}, "l": {"$numberLong": "9"},
        "dec": {"$numberDecimal": "1.1"}, "min": {"$minKey": 1}, "max": {"$maxKey": 1}})json")),
      BytesOf(BsonDoc::FromJson(R"json({"find": "load", "filter": {"_id": 7}, "limit": 1,
        "singleBatch": true, "": "empty key", "$db": "tigerdoc_load", "t": false})json")),
      BytesOf(BsonDoc()),
  };
  const uint8_t replacements[] = {0x00, 0x01, 0x02, 0x04, 0x05, 0x10, 0x41, 0x7F, 0x80, 0xFF};
  for (size_t d = 0; d < corpus.size(); ++d) {
    ExpectAgreesWithLibbson(corpus[d], "corpus " + std::to_string(d));
    for (size_t at = 0; at < corpus[d].size(); ++at) {
      for (uint8_t r : replacements) {
        std::vector<uint8_t> changed = corpus[d];
        changed[at] = r;
        ExpectAgreesWithLibbson(changed, "corpus " + std::to_string(d) + " byte " +
                                             std::to_string(at) + " = " + std::to_string(r));
      }
    }
  }
}

TEST(RawFieldsTest, WalksPlainDocumentsAndHandsRareTypesToLibbson) {
  BsonDoc plain = BsonDoc::FromJson(R"({"a": 1, "b": "x", "c": {"d": [true]}})");
  RawFields fields(plain.get());
  std::vector<std::string> keys;
  while (fields.Next()) keys.emplace_back(fields.key());
  EXPECT_FALSE(fields.broken());
  EXPECT_EQ(keys, (std::vector<std::string>{"a", "b", "c"}));

  BsonDoc regex = BsonDoc::FromJson(R"({"a": 1, "r": {"$regularExpression": {"pattern": "x", "options": ""}}, "z": 2})");
  RawFields rare(regex.get());
  EXPECT_TRUE(rare.Next());
  EXPECT_FALSE(rare.Next());
  EXPECT_TRUE(rare.broken());
  bson_iter_t it;
  ASSERT_TRUE(FindTopLevel(regex.get(), "z", &it));  // found by libbson past the regex
  EXPECT_EQ(bson_iter_int32(&it), 2);
}

}  // namespace
}  // namespace tigerdoc::bson
