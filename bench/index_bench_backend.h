#pragma once
// The interface tigerdoc_index_bench drives: the same documents and the
// same four queries on the tigerdoc server (libmongoc) and on PostgreSQL
// (libpq, JSONB with expression indexes).
//
// Documents (MakeIndexBenchDoc): {_id: NumberLong(i), sku: SkuOf(i),
// price: NumberLong(i), sku_u: SkuOf(i), price_u: NumberLong(i),
// category: i % 100, pad: <kIndexBenchPadBytes x 'p'>}, about 1 KB each.
// `sku` and `price` get indexes; `sku_u` and `price_u` hold the same values
// and never do, so one data set serves the indexed and the unindexed runs.
//
// Thread-safety: one backend is used by one thread.

#include <cstdint>
#include <string>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::bench {

inline constexpr int kIndexBenchPadBytes = 900;
inline constexpr int64_t kRangeWidth = 100;  // a range query returns this many documents

// A unique, unordered string per document number.
std::string SkuOf(int64_t i);
bson::BsonDoc MakeIndexBenchDoc(int64_t i);

class IndexBenchBackend {
 public:
  virtual ~IndexBenchBackend() = default;
  virtual std::string name() const = 0;
  // Drops the data set and loads documents 0..count-1.
  virtual Status Load(int64_t count) = 0;
  // Indexes `sku` and `price` (ascending).
  virtual Status CreateIndexes() = 0;
  // Returns how many documents matched (read in full, as a client would).
  // `indexed` picks sku/price, else sku_u/price_u.
  virtual StatusWith<int64_t> PointQuery(bool indexed, const std::string& sku) = 0;
  virtual StatusWith<int64_t> RangeQuery(bool indexed, int64_t lo, int64_t hi) = 0;  // [lo, hi)
};

}  // namespace tigerdoc::bench
