#include "bench/index_bench_postgres.h"

#include <libpq-fe.h>

#include "bench/pg_connect.h"

namespace tigerdoc::bench {
namespace {

// The statements, by name: the indexed and unindexed forms differ only in
// the field they read.
constexpr PgStatement kStatements[] = {
    {"point_indexed", "SELECT doc FROM docs WHERE doc->>'sku' = $1", 1},
    {"point_unindexed", "SELECT doc FROM docs WHERE doc->>'sku_u' = $1", 1},
    {"range_indexed",
     "SELECT doc FROM docs WHERE (doc->>'price')::bigint >= $1 AND (doc->>'price')::bigint < $2", 2},
    {"range_unindexed",
     "SELECT doc FROM docs WHERE (doc->>'price_u')::bigint >= $1 AND (doc->>'price_u')::bigint < $2",
     2},
};

}  // namespace

StatusWith<std::unique_ptr<PostgresIndexBench>> PostgresIndexBench::Connect(
    const std::string& conninfo) {
  ASSIGN_OR_RETURN(PGconn* conn, ConnectPostgres(conninfo));
  return std::unique_ptr<PostgresIndexBench>(new PostgresIndexBench(conn));
}

PostgresIndexBench::~PostgresIndexBench() { PQfinish(conn_); }

Status PostgresIndexBench::Exec(const std::string& sql) { return PgExec(conn_, sql); }

Status PostgresIndexBench::Load(int64_t count) {
  prepared_ = false;
  RETURN_IF_ERROR(Exec("DEALLOCATE ALL"));
  RETURN_IF_ERROR(Exec("DROP TABLE IF EXISTS docs"));
  RETURN_IF_ERROR(Exec("CREATE TABLE docs (id bigint PRIMARY KEY, doc jsonb NOT NULL)"));
  PGresult* res = PQexec(conn_, "COPY docs (id, doc) FROM STDIN");
  if (PQresultStatus(res) != PGRES_COPY_IN) {
    PQclear(res);
    return PgError("COPY", conn_);
  }
  PQclear(res);
  std::string chunk;
  for (int64_t i = 0; i < count; ++i) {
    bson::BsonDoc doc = MakeIndexBenchDoc(i);
    size_t len = 0;
    char* json = bson_as_relaxed_extended_json(doc.get(), &len);
    chunk += std::to_string(i);
    chunk += '\t';
    // COPY's text format treats backslash as an escape; the documents hold
    // none today, but escaping keeps the loader honest if they ever do.
    for (size_t k = 0; k < len; ++k) {
      if (json[k] == '\\') chunk += '\\';
      chunk += json[k];
    }
    chunk += '\n';
    bson_free(json);
    if (chunk.size() > (1 << 20) || i + 1 == count) {
      if (PQputCopyData(conn_, chunk.data(), static_cast<int>(chunk.size())) != 1) {
        return PgError("COPY data", conn_);
      }
      chunk.clear();
    }
  }
  if (PQputCopyEnd(conn_, nullptr) != 1) return PgError("COPY end", conn_);
  res = PQgetResult(conn_);
  ExecStatusType st = PQresultStatus(res);
  PQclear(res);
  while ((res = PQgetResult(conn_)) != nullptr) PQclear(res);
  if (st != PGRES_COMMAND_OK) return PgError("COPY", conn_);
  // Statistics and the visibility map, so the planner and index-only paths
  // see the table as it is (MongoDB needs neither).
  return Exec("VACUUM ANALYZE docs");
}

Status PostgresIndexBench::CreateIndexes() {
  RETURN_IF_ERROR(Exec("CREATE INDEX docs_sku ON docs ((doc->>'sku'))"));
  RETURN_IF_ERROR(Exec("CREATE INDEX docs_price ON docs (((doc->>'price')::bigint))"));
  return Exec("ANALYZE docs");
}

Status PostgresIndexBench::Prepare() {
  if (prepared_) return Status::OK();
  RETURN_IF_ERROR(PgPrepareAll(conn_, kStatements));
  prepared_ = true;
  return Status::OK();
}

StatusWith<int64_t> PostgresIndexBench::RunPrepared(const char* name, int nparams,
                                                    const char* const* params) {
  RETURN_IF_ERROR(Prepare());
  PGresult* res = PQexecPrepared(conn_, name, nparams, params, nullptr, nullptr, 0);
  if (PQresultStatus(res) != PGRES_TUPLES_OK) {
    PQclear(res);
    return PgError(name, conn_);
  }
  int64_t n = PQntuples(res);
  PQclear(res);
  return n;
}

StatusWith<int64_t> PostgresIndexBench::PointQuery(bool indexed, const std::string& sku) {
  const char* params[] = {sku.c_str()};
  return RunPrepared(indexed ? "point_indexed" : "point_unindexed", 1, params);
}

StatusWith<int64_t> PostgresIndexBench::RangeQuery(bool indexed, int64_t lo, int64_t hi) {
  std::string lo_text = std::to_string(lo), hi_text = std::to_string(hi);
  const char* params[] = {lo_text.c_str(), hi_text.c_str()};
  return RunPrepared(indexed ? "range_indexed" : "range_unindexed", 2, params);
}

}  // namespace tigerdoc::bench
