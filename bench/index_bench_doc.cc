#include "bench/index_bench_backend.h"

#include <cstdio>

namespace tigerdoc::bench {

std::string SkuOf(int64_t i) {
  // splitmix64: a bijection on 64-bit integers, so SKUs are unique and
  // their order says nothing about i (an index on sku is not clustered).
  uint64_t z = static_cast<uint64_t>(i) + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  char buf[32];
  std::snprintf(buf, sizeof buf, "sku-%016llx", static_cast<unsigned long long>(z));
  return buf;
}

bson::BsonDoc MakeIndexBenchDoc(int64_t i) {
  static const std::string pad(kIndexBenchPadBytes, 'p');
  const std::string sku = SkuOf(i);
  bson::BsonDoc doc;
  bson_t* b = doc.mutable_get();
  BSON_APPEND_INT64(b, "_id", i);
  BSON_APPEND_UTF8(b, "sku", sku.c_str());
  BSON_APPEND_INT64(b, "price", i);
  BSON_APPEND_UTF8(b, "sku_u", sku.c_str());
  BSON_APPEND_INT64(b, "price_u", i);
  BSON_APPEND_INT32(b, "category", static_cast<int32_t>(i % 100));
  BSON_APPEND_UTF8(b, "pad", pad.c_str());
  return doc;
}

}  // namespace tigerdoc::bench
