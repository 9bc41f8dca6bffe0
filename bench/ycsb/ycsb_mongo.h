#pragma once
// MongoYcsb: YCSB against a tigerdoc (or any MongoDB) server through
// libmongoc, one mongoc_client_pool_t for all threads as an application
// would use it, each thread calling the driver the way `api` says
// (ycsb_mongo_clients.h). A record is {_id: key, field0: ..., field9: ...}:
//  - read:   find {_id: key} limit 1, singleBatch
//  - update: update_one {_id: key} {$set: {fieldN: value}}
//  - insert: insert_one (default write concern)
//  - scan:   find {_id: {$gte: key}} sort {_id: 1} limit n, read to the end
// `server_pid` (0: unknown) is the server process whose CPU is reported.
// The backend is named "tigerdoc" with MongoApi::kCommand and stores
// ycsb.usertable; with kCrud it is "tigerdoc-crud" on ycsb.usertable_crud,
// so that both can run against one server in one run. MongoApi::kWire is
// not libmongoc: ycsb_mongo_wire.h.

#include <sys/types.h>

#include <string>

#include "bench/ycsb/ycsb_backend.h"
#include "bench/ycsb/ycsb_mongo_clients.h"

struct _mongoc_client_pool_t;

namespace tigerdoc::bench::ycsb {

class MongoYcsb : public Backend {
 public:
  // REQUIRES: api is kCommand or kCrud.
  static StatusWith<std::unique_ptr<MongoYcsb>> Connect(const std::string& uri, pid_t server_pid,
                                                        MongoApi api);
  ~MongoYcsb() override;
  std::string name() const override { return api_ == MongoApi::kCommand ? "tigerdoc" : "tigerdoc-crud"; }
  Status Reset() override;
  StatusWith<std::unique_ptr<Client>> NewClient() override;
  double ServerCpuSeconds() override;

 private:
  MongoYcsb(_mongoc_client_pool_t* pool, pid_t server_pid, MongoApi api)
      : pool_(pool), server_pid_(server_pid), api_(api) {}
  const char* collection() const { return api_ == MongoApi::kCommand ? "usertable" : "usertable_crud"; }
  _mongoc_client_pool_t* pool_;
  pid_t server_pid_;
  MongoApi api_;
};

}  // namespace tigerdoc::bench::ycsb
