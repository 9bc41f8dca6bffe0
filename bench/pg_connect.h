#pragma once
// libpq helpers shared by the PostgreSQL sides of the benchmarks
// (tigerdoc_index_bench, tigerdoc_ycsb): connect, run a statement, prepare
// a set of statements, with failures as Status.
//
// Ownership: the caller PQfinish()es a connection ConnectPostgres returns.
// Thread-safety: a PGconn is used by one thread at a time.

#include <string>

#include "engine/base/status.h"

struct pg_conn;

namespace tigerdoc::bench {

// `conninfo` is a libpq connection string ("host=/tmp/pg port=5439 dbname=postgres").
StatusWith<pg_conn*> ConnectPostgres(const std::string& conninfo);

// `what` followed by the connection's last error message.
Status PgError(const std::string& what, pg_conn* conn);

// Runs `sql` (no parameters); OK when it completed with or without rows.
Status PgExec(pg_conn* conn, const std::string& sql);

struct PgStatement {
  const char* name;
  const char* sql;
  int nparams;
};

// Prepares every statement on `conn` under its name.
template <size_t N>
Status PgPrepareAll(pg_conn* conn, const PgStatement (&statements)[N]);
Status PgPrepare(pg_conn* conn, const PgStatement& statement);

template <size_t N>
Status PgPrepareAll(pg_conn* conn, const PgStatement (&statements)[N]) {
  for (const PgStatement& s : statements) RETURN_IF_ERROR(PgPrepare(conn, s));
  return Status::OK();
}

}  // namespace tigerdoc::bench
