#include "bench/wt_backend.h"

#include <wiredtiger.h>

#include <cstring>
#include <string>

#include "bench/process_cpu.h"
#include "engine/keystring/key_string.h"

namespace tigerdoc::bench {
namespace {

constexpr char kTable[] = "table:load";

Status WtError(int ret, const std::string& what) {
  return Status(ErrorCode::kInternalError, what + ": " + wiredtiger_strerror(ret));
}

// keystring(_id) ++ keystring(_id), as the server's record key for a
// collection whose shard key is _id.
std::string RecordKey(int64_t id) {
  bson_value_t v;
  v.value_type = BSON_TYPE_INT64;
  v.value.v_int64 = id;
  std::string k = keystring::Encode(&v);
  return k + k;
}

class WtWorker : public Worker {
 public:
  explicit WtWorker(WT_SESSION* session, WT_CURSOR* cursor) : session_(session), cursor_(cursor) {}
  ~WtWorker() override { session_->close(session_, nullptr); }

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
    if (ret == 0) {
      WT_ITEM value;
      ret = cursor_->get_value(cursor_, &value);
      // Copy the document out, as the server does before replying.
      if (ret == 0) scratch_.assign(static_cast<const char*>(value.data), value.size);
    }
    cursor_->reset(cursor_);
    session_->rollback_transaction(session_, nullptr);
    return ret == 0;
  }

  bool IncrementById(int64_t id) override {
    std::string key = RecordKey(id);
    if (session_->begin_transaction(session_, nullptr) != 0) return false;
    SetKey(key);
    int ret = cursor_->search(cursor_);
    if (ret == 0) {
      WT_ITEM value;
      ret = cursor_->get_value(cursor_, &value);
      if (ret == 0) {
        // Read, modify, write back the whole document: what an update does.
        scratch_.assign(static_cast<const char*>(value.data), value.size);
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
    }
    return Finish(ret);
  }

 private:
  void SetKey(const std::string& key) {
    key_item_ = WT_ITEM{key.data(), key.size(), nullptr, 0, 0};
    cursor_->set_key(cursor_, &key_item_);
  }

  // Commits on success, rolls back otherwise; true when committed.
  bool Finish(int ret) {
    cursor_->reset(cursor_);
    if (ret != 0) {
      session_->rollback_transaction(session_, nullptr);
      return false;
    }
    return session_->commit_transaction(session_, nullptr) == 0;
  }

  WT_SESSION* session_;
  WT_CURSOR* cursor_;  // owned by session_
  WT_ITEM key_item_{};
  std::string scratch_;
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
  WT_SESSION* session = nullptr;
  int ret = conn_->open_session(conn_, nullptr, nullptr, &session);
  if (ret != 0) return WtError(ret, "open_session");
  // drop fails when the table does not exist yet; create is idempotent.
  session->drop(session, kTable, "force=true");
  ret = session->create(session, kTable, "key_format=u,value_format=u");
  if (ret != 0) {
    session->close(session, nullptr);
    return WtError(ret, "create");
  }
  session->close(session, nullptr);
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
  int ret = conn_->open_session(conn_, nullptr, nullptr, &session);
  if (ret != 0) return WtError(ret, "open_session");
  WT_CURSOR* cursor = nullptr;
  ret = session->open_cursor(session, kTable, nullptr, nullptr, &cursor);
  if (ret != 0) {
    session->close(session, nullptr);
    return WtError(ret, "open_cursor");
  }
  return std::unique_ptr<Worker>(new WtWorker(session, cursor));
}

double WtBackend::ServerCpuSeconds() { return SelfCpuSeconds(); }

}  // namespace tigerdoc::bench
