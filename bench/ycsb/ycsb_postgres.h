#pragma once
// PostgresYcsb: YCSB against PostgreSQL through libpq, one connection per
// thread with prepared statements. The table is
//   usertable(ycsb_key text COLLATE "C" PRIMARY KEY, doc jsonb NOT NULL)
// (the primary key is the btree the scans use; "C" so keys sort by bytes,
// as tigerdoc's _id strings do) and a record's fields are the JSONB object:
//  - read:   SELECT doc FROM usertable WHERE ycsb_key = $1
//  - update: UPDATE usertable SET doc = jsonb_set(doc, {fieldN}, to_jsonb($3)) WHERE ycsb_key = $1
//  - insert: INSERT INTO usertable VALUES ($1, $2::jsonb)
//  - scan:   SELECT doc FROM usertable WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2
// Rows are read in full (text format), as a client would.
// `postmaster_pid` (0: unknown): the CPU reported is the postmaster's and
// its children's (the backends serving the connections, WAL writer, ...).

#include <sys/types.h>

#include <string>

#include "bench/ycsb/ycsb_backend.h"

namespace tigerdoc::bench::ycsb {

class PostgresYcsb : public Backend {
 public:
  // `conninfo`: a libpq connection string ("host=/tmp/pg port=5439 dbname=postgres").
  PostgresYcsb(std::string conninfo, pid_t postmaster_pid)
      : conninfo_(std::move(conninfo)), postmaster_pid_(postmaster_pid) {}
  std::string name() const override { return "postgres"; }
  Status Reset() override;
  Status FinishLoad() override;
  StatusWith<std::unique_ptr<Client>> NewClient() override;
  double ServerCpuSeconds() override;

 private:
  Status Exec(const std::string& sql);
  std::string conninfo_;
  pid_t postmaster_pid_;
};

}  // namespace tigerdoc::bench::ycsb
