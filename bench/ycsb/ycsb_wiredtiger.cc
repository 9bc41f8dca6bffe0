#include "bench/ycsb/ycsb_wiredtiger.h"

#include <wiredtiger.h>

#include <bson/bson.h>

#include "bench/process_cpu.h"
#include "bench/wt_backend.h"
#include "bench/wt_table.h"
#include "engine/keystring/key_string.h"

namespace tigerdoc::bench::ycsb {
namespace {

constexpr char kTable[] = "table:usertable";

// The server's record key for a string _id in a collection sharded by _id.
std::string RecordKey(const std::string& key) {
  bson_value_t v;
  v.value_type = BSON_TYPE_UTF8;
  v.value.v_utf8.str = const_cast<char*>(key.c_str());
  v.value.v_utf8.len = static_cast<uint32_t>(key.size());
  std::string k = keystring::Encode(&v);
  return k + k;
}

class WiredTigerClient : public Client, private WtTableSession {
 public:
  WiredTigerClient(WT_SESSION* session, WT_CURSOR* cursor) : WtTableSession(session, cursor) {}

  bool Insert(const std::string& key, const std::vector<std::string>& fields) override {
    bson_t doc = BSON_INITIALIZER;
    BSON_APPEND_UTF8(&doc, "_id", key.c_str());
    for (int i = 0; i < kFieldCount; ++i) {
      const std::string& f = fields[static_cast<size_t>(i)];
      bson_append_utf8(&doc, FieldName(i).c_str(), -1, f.data(), static_cast<int>(f.size()));
    }
    std::string rk = RecordKey(key);
    session_->begin_transaction(session_, nullptr);
    SetKey(rk);
    WT_ITEM value{bson_get_data(&doc), doc.len, nullptr, 0, 0};
    cursor_->set_value(cursor_, &value);
    int ret = cursor_->insert(cursor_);  // overwrite=false: a duplicate fails
    bson_destroy(&doc);
    return Finish(ret);
  }

  bool Read(const std::string& key) override {
    std::string rk = RecordKey(key);
    session_->begin_transaction(session_, nullptr);
    SetKey(rk);
    int ret = cursor_->search(cursor_);
    if (ret == 0) ret = CopyValue();
    cursor_->reset(cursor_);
    session_->rollback_transaction(session_, nullptr);
    return ret == 0;
  }

  bool Update(const std::string& key, int field, const std::string& value) override {
    std::string rk = RecordKey(key);
    session_->begin_transaction(session_, nullptr);
    SetKey(rk);
    int ret = cursor_->search(cursor_);
    if (ret == 0) ret = CopyValue();
    if (ret == 0) {
      // Rebuild the document with the field replaced, as $set does.
      bson_t old_doc, new_doc = BSON_INITIALIZER;
      bson_iter_t it;
      if (!bson_init_static(&old_doc, reinterpret_cast<const uint8_t*>(scratch_.data()), scratch_.size()) ||
          !bson_iter_init(&it, &old_doc)) {
        ret = EINVAL;
      } else {
        const std::string& name = FieldName(field);
        while (bson_iter_next(&it)) {
          if (name == bson_iter_key(&it)) {
            bson_append_utf8(&new_doc, name.c_str(), -1, value.data(), static_cast<int>(value.size()));
          } else {
            bson_append_iter(&new_doc, nullptr, 0, &it);
          }
        }
        SetKey(rk);
        WT_ITEM updated{bson_get_data(&new_doc), new_doc.len, nullptr, 0, 0};
        cursor_->set_value(cursor_, &updated);
        ret = cursor_->update(cursor_);
      }
      bson_destroy(&new_doc);
    }
    return Finish(ret);
  }

  int64_t Scan(const std::string& start, int count) override {
    std::string rk = RecordKey(start);
    session_->begin_transaction(session_, nullptr);
    SetKey(rk);
    int exact = 0;
    int ret = cursor_->search_near(cursor_, &exact);
    if (ret == 0 && exact < 0) ret = cursor_->next(cursor_);
    int64_t n = 0;
    while (ret == 0 && n < count) {
      ret = CopyValue();
      if (ret != 0) break;
      ++n;
      if (n < count) ret = cursor_->next(cursor_);
    }
    cursor_->reset(cursor_);
    session_->rollback_transaction(session_, nullptr);
    return ret == 0 || ret == WT_NOTFOUND ? n : -1;
  }
};

}  // namespace

StatusWith<std::unique_ptr<WiredTigerYcsb>> WiredTigerYcsb::Open(const std::string& home,
                                                                 int cache_size_mb) {
  ASSIGN_OR_RETURN(WT_CONNECTION* conn, OpenLikeServer(home, cache_size_mb));
  return std::unique_ptr<WiredTigerYcsb>(new WiredTigerYcsb(conn));
}

WiredTigerYcsb::~WiredTigerYcsb() { conn_->close(conn_, nullptr); }

Status WiredTigerYcsb::Reset() {
  return RecreateTable(conn_, kTable);
}

StatusWith<std::unique_ptr<Client>> WiredTigerYcsb::NewClient() {
  WT_SESSION* session = nullptr;
  WT_CURSOR* cursor = nullptr;
  RETURN_IF_ERROR(OpenTableCursor(conn_, kTable, &session, &cursor));
  return std::unique_ptr<Client>(new WiredTigerClient(session, cursor));
}

double WiredTigerYcsb::ServerCpuSeconds() { return SelfCpuSeconds(); }

}  // namespace tigerdoc::bench::ycsb
