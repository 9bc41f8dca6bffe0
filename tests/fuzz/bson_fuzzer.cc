// libFuzzer target: BSON validation as the server does it on every
// incoming document (wire::ByteReader::ReadDocument: size bounds, the
// nesting-depth walk, then bson_validate), and what the engine does first
// with an accepted document: compare its values (engine/bson/compare.h)
// and encode them as index keys (engine/keystring).
// Properties: an accepted document is safe for every libbson iterator; the
// keystring of two values orders as CompareValues orders them, and equal
// values encode to identical bytes (the promise unique indexes and _id
// lookups rely on).
// Seeds: corpus/bson_fuzzer (make_corpus.py).

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/bson/compare.h"
#include "engine/keystring/key_string.h"
#include "wire/protocol/byte_reader.h"

namespace {

using namespace tigerdoc;

int Sign(int v) { return v < 0 ? -1 : (v > 0 ? 1 : 0); }

// Every value of `doc`, nested ones too, in document order. Shallow
// copies: their strings and sub-documents point into `doc`. (Not
// bson_iter_t: libbson declares it 128-byte aligned, more than a vector's
// allocation promises.)
void CollectValues(const bson_t* doc, std::vector<bson_value_t>* out) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) std::abort();  // validated documents iterate
  while (bson_iter_next(&it)) {
    out->push_back(*bson_iter_value(&it));
    if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
        bson_iter_document(&it, &len, &data);
      } else {
        bson_iter_array(&it, &len, &data);
      }
      bson_t sub;
      if (!bson_init_static(&sub, data, len)) std::abort();
      CollectValues(&sub, out);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  wire::ByteReader reader(data, size);
  auto doc = reader.ReadDocument();
  if (!doc.ok()) return 0;
  (void)doc.value().ToJson();
  if (bson::CompareDocuments(doc.value().get(), doc.value().get()) != 0) std::abort();

  std::vector<bson_value_t> values;
  CollectValues(doc.value().get(), &values);
  if (values.size() > 64) values.resize(64);  // pairs below are quadratic
  std::vector<std::string> keys;
  for (const bson_value_t& v : values) keys.push_back(keystring::Encode(&v));
  for (size_t i = 0; i < values.size(); ++i) {
    for (size_t j = i; j < values.size() && j < i + 8; ++j) {
      const int by_compare = Sign(bson::CompareValues(&values[i], &values[j]));
      const int by_key = Sign(keys[i].compare(keys[j]));
      if (by_compare != by_key) {
        std::fprintf(stderr, "keystring order %d != compare order %d for values %zu and %zu\n",
                     by_key, by_compare, i, j);
        std::abort();
      }
    }
  }
  return 0;
}
