#pragma once
// MongoIndexBench: the index benchmark against a running tigerdoc (or any
// MongoDB) server through libmongoc: insert_many in batches to load,
// createIndexes, and finds read to the end as an application would.

#include <mongoc/mongoc.h>

#include <memory>
#include <string>

#include "bench/index_bench_backend.h"

namespace tigerdoc::bench {

class MongoIndexBench : public IndexBenchBackend {
 public:
  static StatusWith<std::unique_ptr<MongoIndexBench>> Connect(const std::string& uri,
                                                              const std::string& db,
                                                              const std::string& coll);
  ~MongoIndexBench() override;
  std::string name() const override { return "tigerdoc"; }
  Status Load(int64_t count) override;
  Status CreateIndexes() override;
  StatusWith<int64_t> PointQuery(bool indexed, const std::string& sku) override;
  StatusWith<int64_t> RangeQuery(bool indexed, int64_t lo, int64_t hi) override;

 private:
  MongoIndexBench(mongoc_client_t* client, std::string db, std::string coll);
  StatusWith<int64_t> CountResults(const bson_t* filter);

  mongoc_client_t* client_;
  std::string db_;
  std::string coll_name_;
  mongoc_collection_t* coll_;
};

}  // namespace tigerdoc::bench
