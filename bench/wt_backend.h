#pragma once
// WtBackend: the same three operations done in-process directly on
// WiredTiger, with nothing of tigerdoc in between but its key encoding: the
// ceiling the server's numbers are compared with.
//
// Mirrors the server's storage settings (engine/storage/storage_engine.cc):
// journal on, transaction_sync=(enabled=true,method=none) so each commit
// writes its log records to the OS like a w:1 acknowledgement, one table
// with key_format=u,value_format=u, record key = keystring(_id) ++
// keystring(_id) (the record key of a collection sharded by _id) and the
// BSON document as value. Each operation is one transaction, as each
// server write is.
//
// The bench links WiredTiger directly: an explicit exception to "only
// engine/storage includes <wiredtiger.h>", because measuring raw WiredTiger
// is this file's purpose.
//
// Thread-safety: NewWorker() is thread-safe (WT_CONNECTION is); each Worker
// owns one WT_SESSION and is used by one thread.

#include <memory>
#include <string>

#include "bench/load_backend.h"

struct __wt_connection;

namespace tigerdoc::bench {

// Opens (creating) a WiredTiger home at `home` with the server's storage
// settings above; cache_size_mb as the server's --cacheSizeMB. Shared with
// tigerdoc_ycsb's in-process ceiling. The caller closes the connection.
StatusWith<__wt_connection*> OpenLikeServer(const std::string& home, int cache_size_mb);

class WtBackend : public Backend {
 public:
  // Opens (creating) a WiredTiger home at `home`; cache_size_mb as the
  // server's --cacheSizeMB.
  static StatusWith<std::unique_ptr<WtBackend>> Open(const std::string& home, int cache_size_mb);
  ~WtBackend() override;
  std::string name() const override { return "wiredtiger"; }
  Status Reset(int64_t count) override;
  StatusWith<std::unique_ptr<Worker>> NewWorker() override;
  // This process: the engine runs in it.
  double ServerCpuSeconds() override;

 private:
  explicit WtBackend(__wt_connection* conn) : conn_(conn) {}
  __wt_connection* conn_;
};

}  // namespace tigerdoc::bench
