#include "bench/wt_backend.h"

#include <wiredtiger.h>

#include <cstring>
#include <string>

#include "bench/process_cpu.h"
#include "bench/wt_table.h"
#include "engine/keystring/key_string.h"

namespace tigerdoc::bench {
namespace {

constexpr char kTable[] = "table:load";

// keystring(_id) ++ keystring(_id), as the server's record key for a
// collection whose shard key is _id.
std::string RecordKey(int64_t id) {
  bson_value_t v;
  v.value_type = BSON_TYPE_INT64;
  v.value.v_int64 = id;
  std::string k = keystring::Encode(&v);
  return k + k;
}

class WtWorker : public Worker, private WtTableSession {
 public:
  WtWorker(WT_SESSION* session, WT_CURSOR* cursor) : WtTableSession(session, cursor) {}

  bool Insert(int64_t id) override {
    bson::BsonDoc doc = MakeLoadDoc(id);
    std::string key = RecordKey(id);
    if (session_->begin_transaction(session_, nullptr) != 0) return false;
    SetKey(key);
    WT_ITEM value{doc.data(), doc.size(), nullptr, 0, 0};
    cursor_->set_value(cursor_, &value);
    int ret = cursor_->insert(cursor_);  // overwrite=false: a duplicate fails
    return Finish(ret);
  }

  bool ReadById(int64_t id) override {
    std::string key = RecordKey(id);
    if (session_->begin_transaction(session_, nullptr) != 0) return false;
    SetKey(key);
    int ret = cursor_->search(cursor_);
    if (ret == 0) ret = CopyValue();
    cursor_->reset(cursor_);
    session_->rollback_transaction(session_, nullptr);
    return ret == 0;
  }

  bool IncrementById(int64_t id) override {
    std::string key = RecordKey(id);
    if (session_->begin_transaction(session_, nullptr) != 0) return false;
    SetKey(key);
    int ret = cursor_->search(cursor_);
    if (ret == 0) ret = CopyValue();
    if (ret == 0) {
      // Read, modify, write back the whole document: what an update does.
      bson_t doc;
      bson_iter_t it;
      if (!bson_init_static(&doc, reinterpret_cast<const uint8_t*>(scratch_.data()), scratch_.size()) ||
          !bson_iter_init_find(&it, &doc, "n") || !BSON_ITER_HOLDS_INT32(&it)) {
        ret = EINVAL;
      } else {
        bson_iter_overwrite_int32(&it, bson_iter_int32(&it) + 1);
        WT_ITEM updated{scratch_.data(), scratch_.size(), nullptr, 0, 0};
        SetKey(key);
        cursor_->set_value(cursor_, &updated);
        ret = cursor_->update(cursor_);
      }
    }
    return Finish(ret);
  }
};

}  // namespace

StatusWith<WT_CONNECTION*> OpenLikeServer(const std::string& home, int cache_size_mb) {
  std::string config = "create,cache_size=" + std::to_string(cache_size_mb) +
                       "M,session_max=256"
                       ",log=(enabled=true,path=.,archive=true)"
                       ",transaction_sync=(enabled=true,method=none)"
                       ",checkpoint=(wait=60)";
  WT_CONNECTION* conn = nullptr;
  int ret = wiredtiger_open(home.c_str(), nullptr, config.c_str(), &conn);
  if (ret != 0) return WtError(ret, "wiredtiger_open " + home);
  return conn;
}

StatusWith<std::unique_ptr<WtBackend>> WtBackend::Open(const std::string& home, int cache_size_mb) {
  ASSIGN_OR_RETURN(WT_CONNECTION* conn, OpenLikeServer(home, cache_size_mb));
  return std::unique_ptr<WtBackend>(new WtBackend(conn));
}

WtBackend::~WtBackend() { conn_->close(conn_, nullptr); }

Status WtBackend::Reset(int64_t count) {
  RETURN_IF_ERROR(RecreateTable(conn_, kTable));
  StatusWith<std::unique_ptr<Worker>> worker = NewWorker();
  if (!worker.ok()) return worker.status();
  for (int64_t id = 0; id < count; ++id) {
    if (!worker.value()->Insert(id)) {
      return Status(ErrorCode::kInternalError, "preload insert of _id " + std::to_string(id));
    }
  }
  return Status::OK();
}

StatusWith<std::unique_ptr<Worker>> WtBackend::NewWorker() {
  WT_SESSION* session = nullptr;
  WT_CURSOR* cursor = nullptr;
  RETURN_IF_ERROR(OpenTableCursor(conn_, kTable, &session, &cursor));
  return std::unique_ptr<Worker>(new WtWorker(session, cursor));
}

double WtBackend::ServerCpuSeconds() { return SelfCpuSeconds(); }

}  // namespace tigerdoc::bench
