#pragma once
// ServerBackend: the load against a running tigerdoc (or any MongoDB)
// server through libmongoc. Each Worker owns its own mongoc_client_t, so N
// workers are N connections. Operations use the driver's ordinary helpers
// (insert_one, insert_many, find with limit 1, update_one) with the default
// write concern, as an application would, or {j: true} (SetJournaled).

#include <sys/types.h>

#include <memory>
#include <string>

#include "bench/load_backend.h"

namespace tigerdoc::bench {

class ServerBackend : public Backend {
 public:
  // `uri` is a MongoDB connection string; documents go to db.coll.
  // `create_options` (JSON, may be empty): the collection is created with
  // them after the drop, e.g. {"maxPartitionBytes": 1000000000}.
  // `server_pid` (0: unknown) is the server process whose CPU is reported.
  ServerBackend(std::string uri, std::string db, std::string coll,
                std::string create_options = "", pid_t server_pid = 0);
  std::string name() const override { return "tigerdoc"; }
  Status Reset(int64_t count) override;
  StatusWith<std::unique_ptr<Worker>> NewWorker() override;
  double ServerCpuSeconds() override;
  // Inserts and updates ask for writeConcern {j: true}: acknowledged once
  // the journal is fsynced.
  void SetJournaled(bool journaled) { journaled_ = journaled; }

 private:
  std::string uri_, db_, coll_, create_options_;
  pid_t server_pid_;
  bool journaled_ = false;
};

}  // namespace tigerdoc::bench
