#pragma once
// PostgresIndexBench: the index benchmark on PostgreSQL through libpq. The
// data set is one table `docs(id bigint primary key, doc jsonb)` holding the
// same documents as extended JSON; the indexes are expression indexes
// ((doc->>'sku') and ((doc->>'price')::bigint)), the usual way to index
// JSONB fields; queries are prepared statements whose rows are read in
// full (text format), as a client would.

#include <memory>
#include <string>

#include "bench/index_bench_backend.h"

struct pg_conn;

namespace tigerdoc::bench {

class PostgresIndexBench : public IndexBenchBackend {
 public:
  // `conninfo` is a libpq connection string ("host=/tmp/pg port=5439 dbname=postgres").
  static StatusWith<std::unique_ptr<PostgresIndexBench>> Connect(const std::string& conninfo);
  ~PostgresIndexBench() override;
  std::string name() const override { return "postgres"; }
  Status Load(int64_t count) override;
  Status CreateIndexes() override;
  StatusWith<int64_t> PointQuery(bool indexed, const std::string& sku) override;
  StatusWith<int64_t> RangeQuery(bool indexed, int64_t lo, int64_t hi) override;

 private:
  explicit PostgresIndexBench(pg_conn* conn) : conn_(conn) {}
  Status Exec(const std::string& sql);
  Status Prepare();
  StatusWith<int64_t> RunPrepared(const char* name, int nparams, const char* const* params);

  pg_conn* conn_;
  bool prepared_ = false;
};

}  // namespace tigerdoc::bench
