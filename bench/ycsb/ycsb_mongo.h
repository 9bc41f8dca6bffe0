#pragma once
// MongoYcsb: YCSB against a tigerdoc (or any MongoDB) server through
// libmongoc, one mongoc_client_pool_t for all threads as an application
// would use it. A record is {_id: key, field0: ..., field9: ...}:
//  - read:   find {_id: key} limit 1, singleBatch
//  - update: update_one {_id: key} {$set: {fieldN: value}}
//  - insert: insert_one (default write concern)
//  - scan:   find {_id: {$gte: key}} sort {_id: 1} limit n, read to the end
// `server_pid` (0: unknown) is the server process whose CPU is reported.

#include <sys/types.h>

#include <string>

#include "bench/ycsb/ycsb_backend.h"

struct _mongoc_client_pool_t;

namespace tigerdoc::bench::ycsb {

class MongoYcsb : public Backend {
 public:
  static StatusWith<std::unique_ptr<MongoYcsb>> Connect(const std::string& uri, pid_t server_pid);
  ~MongoYcsb() override;
  std::string name() const override { return "tigerdoc"; }
  Status Reset() override;
  StatusWith<std::unique_ptr<Client>> NewClient() override;
  double ServerCpuSeconds() override;

 private:
  MongoYcsb(_mongoc_client_pool_t* pool, pid_t server_pid) : pool_(pool), server_pid_(server_pid) {}
  _mongoc_client_pool_t* pool_;
  pid_t server_pid_;
};

}  // namespace tigerdoc::bench::ycsb
