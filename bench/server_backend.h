#pragma once
// ServerBackend: the load against a running tigerdoc (or any MongoDB)
// server, through one of two clients (LoadClient):
//  - kLibmongoc: the driver's ordinary helpers (insert_one, insert_many,
//    find with limit 1, update_one), as an application would;
//  - kWire: bench/wire_client.h, one OP_MSG per request with the same
//    commands libmongoc puts on the wire (documents and updates in a kind-1
//    document sequence), so the server's work is the same and the client's
//    CPU is a fraction of the driver's (bench/README.md, "Thin client for
//    tigerdoc_load").
// Each Worker (a ServerConnection) owns its own connection, so N workers
// are N connections. Writes use the default write concern or {j: true}
// (SetJournaled). Both clients judge replies alike: an insert wrote every
// document it sent, a read found the document with the _id it asked for,
// an $inc matched and modified exactly one document; anything else is a
// failed operation.
//
// Thread-safety: as load_backend.h; one thread per ServerConnection.

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/load_backend.h"

namespace tigerdoc::bench {

enum class LoadClient { kLibmongoc, kWire };

// "libmongoc" / "wire".
const char* LoadClientName(LoadClient client);
// A comma list of client names ("libmongoc,wire"); false on an unknown
// name or an empty list.
bool ParseLoadClients(const std::string& list, std::vector<LoadClient>* out);

// One connection to the server: the load's operations plus the
// connections bench's scan.
class ServerConnection : public Worker {
 public:
  // A find on `v` (not indexed): examines every document and must return
  // none (no load document has that value).
  virtual bool FindNone() = 0;
};

// A connection of `client`'s kind to the server of `uri`, working on db.coll.
StatusWith<std::unique_ptr<ServerConnection>> ConnectServer(LoadClient client, const std::string& uri,
                                                            const std::string& db,
                                                            const std::string& coll, bool journaled);
// The same over the thin wire client (bench/wire_load_connection.cc).
StatusWith<std::unique_ptr<ServerConnection>> ConnectWireLoad(const std::string& uri,
                                                              const std::string& db,
                                                              const std::string& coll,
                                                              bool journaled);

class ServerBackend : public Backend {
 public:
  // `uri` is a MongoDB connection string; documents go to db.coll.
  // `create_options` (JSON, may be empty): the collection is created with
  // them after the drop, e.g. {"maxPartitionBytes": 1000000000}.
  // `server_pid` (0: unknown) is the server process whose CPU is reported.
  // Reset preloads through libmongoc whatever the client: only the
  // workers' operations are measured.
  ServerBackend(std::string uri, std::string db, std::string coll,
                std::string create_options = "", pid_t server_pid = 0,
                LoadClient client = LoadClient::kLibmongoc);
  // "tigerdoc" (libmongoc) or "tigerdoc-wire", as tigerdoc_ycsb names them.
  std::string name() const override;
  Status Reset(int64_t count) override;
  StatusWith<std::unique_ptr<Worker>> NewWorker() override;
  double ServerCpuSeconds() override;
  // Inserts and updates ask for writeConcern {j: true}: acknowledged once
  // the journal is fsynced.
  void SetJournaled(bool journaled) { journaled_ = journaled; }

 private:
  std::string uri_, db_, coll_, create_options_;
  pid_t server_pid_;
  LoadClient client_;
  bool journaled_ = false;
};

// True when `doc` is a document whose _id is the int64 `id`: what a read
// by _id must have found, whichever client read it.
bool HasLoadId(const bson_t* doc, int64_t id);

// The value FindNone looks for in `v`.
inline constexpr char kNoSuchValue[] = "no such value";

}  // namespace tigerdoc::bench
