#pragma once
// MongoWireYcsb: YCSB against a tigerdoc (or any MongoDB) server through
// bench/wire_client.h instead of libmongoc: one blocking connection per
// thread, the `hello` handshake once, then each operation is one OP_MSG
// with the same command the libmongoc command client sends
// (ycsb_mongo_commands.h) and one reply read with libbson. It is the
// counterpart of libpq beside the full driver, so the bench can tell the
// driver's CPU from the server's (bench/README.md, "A thin wire client
// beside libmongoc").
//
// The backend is named "tigerdoc-wire" and stores ycsb.usertable_wire, so
// that it runs beside "tigerdoc" (ycsb.usertable) on one server in one run.
// Every answer is checked as the other backends check theirs; a failed
// operation returns false and its reason is printed (the first few per
// client) on stderr.
//
// Thread-safety: as ycsb_backend.h.

#include <sys/types.h>

#include <memory>
#include <string>

#include "bench/ycsb/ycsb_backend.h"

namespace tigerdoc::bench::ycsb {

class MongoWireYcsb : public Backend {
 public:
  // Takes the first host of `uri` (mongodb://host:port/...) and checks it
  // answers the handshake. `server_pid` (0: unknown) is the process whose
  // CPU is reported.
  static StatusWith<std::unique_ptr<MongoWireYcsb>> Connect(const std::string& uri,
                                                            pid_t server_pid);
  std::string name() const override { return "tigerdoc-wire"; }
  Status Reset() override;
  StatusWith<std::unique_ptr<Client>> NewClient() override;
  double ServerCpuSeconds() override;

 private:
  MongoWireYcsb(std::string host, int port, pid_t server_pid)
      : host_(std::move(host)), port_(port), server_pid_(server_pid) {}
  std::string host_;
  int port_;
  pid_t server_pid_;
};

// One client on its own connection to host:port, working on db.collection
// (exposed for tests).
StatusWith<std::unique_ptr<Client>> NewMongoWireClient(const std::string& host, int port,
                                                       const std::string& db,
                                                       const std::string& collection);

}  // namespace tigerdoc::bench::ycsb
