#include "bench/pg_connect.h"

#include <libpq-fe.h>

namespace tigerdoc::bench {

StatusWith<PGconn*> ConnectPostgres(const std::string& conninfo) {
  PGconn* conn = PQconnectdb(conninfo.c_str());
  if (PQstatus(conn) != CONNECTION_OK) {
    Status error = PgError("connect to PostgreSQL (" + conninfo + ")", conn);
    PQfinish(conn);
    return error;
  }
  // NOTICEs ("table does not exist, skipping") are not worth a line each.
  PQsetNoticeProcessor(conn, [](void*, const char*) {}, nullptr);
  return conn;
}

Status PgError(const std::string& what, PGconn* conn) {
  return Status(ErrorCode::kOperationFailed, what + ": " + PQerrorMessage(conn));
}

Status PgExec(PGconn* conn, const std::string& sql) {
  PGresult* res = PQexec(conn, sql.c_str());
  ExecStatusType st = PQresultStatus(res);
  PQclear(res);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) return PgError(sql, conn);
  return Status::OK();
}

Status PgPrepare(PGconn* conn, const PgStatement& s) {
  PGresult* res = PQprepare(conn, s.name, s.sql, s.nparams, nullptr);
  ExecStatusType st = PQresultStatus(res);
  PQclear(res);
  if (st != PGRES_COMMAND_OK) return PgError(std::string("prepare ") + s.name, conn);
  return Status::OK();
}

}  // namespace tigerdoc::bench
