// tigerdoc_load's operations over the thin wire client (server_backend.h,
// LoadClient::kWire). The requests are the ones libmongoc 1.23 sends for
// the same helpers, so that the server does the same work for either
// client: insert_one/insert_many and update_one send the command with
// ordered: true and their documents/updates in an OP_MSG document sequence;
// find_with_opts sends {find, filter, limit: 1, singleBatch: true}. (What
// libmongoc adds and this does not: lsid, the implicit session.)
#include <cstdio>
#include <cstring>
#include <vector>

#include "bench/server_backend.h"
#include "bench/wire_client.h"
#include "bench/wire_load_requests.h"

namespace tigerdoc::bench {
namespace {

// A broken connection fails every later operation: say why a few times,
// not a hundred thousand.
constexpr int kMaxReportedFailures = 5;
// Room in a message for the header, the command and the sequence's own
// bytes besides its documents, when a batch is split to fit.
constexpr size_t kMessageHeadroom = 16 * 1024;

class WireLoadConnection : public ServerConnection {
 public:
  WireLoadConnection(std::unique_ptr<WireClient> conn, std::string db, std::string coll,
                     bool journaled)
      : conn_(std::move(conn)), db_(std::move(db)), coll_(std::move(coll)), journaled_(journaled) {}
  ~WireLoadConnection() override {
    bson_destroy(&cmd_);
    bson_destroy(&statement_);
  }

  bool Insert(int64_t id) override {
    bson::BsonDoc doc = MakeLoadDoc(id);
    return Insert(id, bson_get_data(doc.get()), doc.get()->len, 1);
  }

  // As ServerWorker::InsertBatch: the documents are built once (back to
  // back, as they go on the wire) and only their _ids change. A batch is
  // split as libmongoc splits one: at most maxWriteBatchSize documents and
  // what fits in maxMessageSizeBytes per request.
  bool InsertBatch(int64_t first_id, int count) override {
    if (static_cast<int>(batch_offsets_.size()) != count) BuildBatch(first_id, count);
    for (int i = 0; i < count; ++i) {
      bson_t doc;
      bson_iter_t it;
      if (!bson_init_static(&doc, batch_.data() + batch_offsets_[i], DocBytes(i)) ||
          !bson_iter_init_find(&it, &doc, "_id") || !BSON_ITER_HOLDS_INT64(&it)) {
        return Failed("insertMany", first_id + i, "the batch's document has no int64 _id");
      }
      bson_iter_overwrite_int64(&it, first_id + i);
    }
    const size_t limit = static_cast<size_t>(conn_->max_message_bytes());
    const size_t max_bytes = limit > 2 * kMessageHeadroom ? limit - kMessageHeadroom : limit / 2;
    for (int start = 0; start < count;) {
      int end = start;
      size_t bytes = 0;
      while (end < count && end - start < conn_->max_write_batch_size() &&
             (end == start || bytes + DocBytes(end) <= max_bytes)) {
        bytes += DocBytes(end++);
      }
      if (!Insert(first_id + start, batch_.data() + batch_offsets_[start], bytes, end - start)) {
        return false;
      }
      start = end;
    }
    return true;
  }

  bool ReadById(int64_t id) override {
    BuildReadById(&cmd_, coll_, id);
    bson_t reply;
    if (Status st = conn_->Run(&cmd_, db_, &reply); !st.ok()) return Failed("read", id, st.ToString());
    if (std::string why = CheckReadByIdReply(&reply, id); !why.empty()) {
      return Failed("read", id, why, &reply);
    }
    return true;
  }

  bool IncrementById(int64_t id) override {
    bson_reinit(&cmd_);
    BSON_APPEND_UTF8(&cmd_, "update", coll_.c_str());
    AppendWriteOptions();
    bson_reinit(&statement_);
    bson_t q, u, inc;
    BSON_APPEND_DOCUMENT_BEGIN(&statement_, "q", &q);
    BSON_APPEND_INT64(&q, "_id", id);
    bson_append_document_end(&statement_, &q);
    BSON_APPEND_DOCUMENT_BEGIN(&statement_, "u", &u);
    BSON_APPEND_DOCUMENT_BEGIN(&u, "$inc", &inc);
    BSON_APPEND_INT32(&inc, "n", 1);
    bson_append_document_end(&u, &inc);
    bson_append_document_end(&statement_, &u);
    const WireSequence updates{"updates", bson_get_data(&statement_), statement_.len};
    bson_t reply;
    if (Status st = conn_->Run(&cmd_, db_, &reply, &updates); !st.ok()) {
      return Failed("$inc", id, st.ToString());
    }
    // Every id the load updates exists, and $inc always changes it.
    return CheckWrite("$inc", id, &reply, "n", 1) && CheckWrite("$inc", id, &reply, "nModified", 1);
  }

  bool FindNone() override {
    BuildFindNone(&cmd_, coll_);
    bson_t reply;
    if (Status st = conn_->Run(&cmd_, db_, &reply); !st.ok()) return Failed("scan", -1, st.ToString());
    if (std::string why = CheckFindNoneReply(&reply); !why.empty()) {
      return Failed("scan", -1, why, &reply);
    }
    return true;
  }

 private:
  size_t DocBytes(int i) const {
    const size_t end = i + 1 < static_cast<int>(batch_offsets_.size()) ? batch_offsets_[i + 1] : batch_.size();
    return end - batch_offsets_[i];
  }

  void BuildBatch(int64_t first_id, int count) {
    batch_.clear();
    batch_offsets_.clear();
    for (int i = 0; i < count; ++i) {
      bson::BsonDoc doc = MakeLoadDoc(first_id + i);
      batch_offsets_.push_back(batch_.size());
      const uint8_t* data = bson_get_data(doc.get());
      batch_.insert(batch_.end(), data, data + doc.get()->len);
    }
  }

  // {insert: coll, ordered: true[, writeConcern]} with `count` documents
  // (`bytes` of them back to back), the first with _id first_id.
  bool Insert(int64_t first_id, const uint8_t* documents, size_t bytes, int count) {
    bson_reinit(&cmd_);
    BSON_APPEND_UTF8(&cmd_, "insert", coll_.c_str());
    AppendWriteOptions();
    const WireSequence sequence{"documents", documents, bytes};
    bson_t reply;
    if (Status st = conn_->Run(&cmd_, db_, &reply, &sequence); !st.ok()) {
      return Failed("insert", first_id, st.ToString());
    }
    return CheckWrite("insert", first_id, &reply, "n", count);
  }

  void AppendWriteOptions() {
    BSON_APPEND_BOOL(&cmd_, "ordered", true);
    if (journaled_) {
      bson_t wc;
      BSON_APPEND_DOCUMENT_BEGIN(&cmd_, "writeConcern", &wc);
      BSON_APPEND_BOOL(&wc, "j", true);
      bson_append_document_end(&cmd_, &wc);
    }
  }

  // A write's reply (ok: 1 already checked) must have no writeErrors and no
  // writeConcernError, and `count_key` must be `expected`.
  bool CheckWrite(const char* op, int64_t id, const bson_t* reply, const char* count_key,
                  int64_t expected) {
    bson_iter_t it;
    if (bson_iter_init_find(&it, reply, "writeErrors")) return Failed(op, id, "writeErrors", reply);
    if (bson_iter_init_find(&it, reply, "writeConcernError")) {
      return Failed(op, id, "writeConcernError", reply);
    }
    if (!bson_iter_init_find(&it, reply, count_key) || !BSON_ITER_HOLDS_NUMBER(&it) ||
        bson_iter_as_int64(&it) != expected) {
      return Failed(op, id, std::string(count_key) + " is not " + std::to_string(expected), reply);
    }
    return true;
  }

  // Prints the first few failures; always false.
  bool Failed(const char* op, int64_t id, const std::string& why, const bson_t* reply = nullptr) {
    if (failures_++ < kMaxReportedFailures) {
      char* json = reply ? bson_as_relaxed_extended_json(reply, nullptr) : nullptr;
      std::fprintf(stderr, "[tigerdoc-wire] %s %lld: %s%s%s\n", op, static_cast<long long>(id),
                   why.c_str(), json ? ": " : "", json ? json : "");
      bson_free(json);
    }
    return false;
  }

  std::unique_ptr<WireClient> conn_;
  std::string db_, coll_;
  bool journaled_;
  bson_t cmd_ = BSON_INITIALIZER;        // refilled by every operation
  bson_t statement_ = BSON_INITIALIZER;  // IncrementById's update statement
  std::vector<uint8_t> batch_;           // InsertBatch's documents, back to back
  std::vector<size_t> batch_offsets_;    // where each starts in batch_
  int64_t failures_ = 0;
};

}  // namespace

StatusWith<std::unique_ptr<ServerConnection>> ConnectWireLoad(const std::string& uri,
                                                              const std::string& db,
                                                              const std::string& coll,
                                                              bool journaled) {
  std::string host;
  int port = 0;
  RETURN_IF_ERROR(FirstHostOfUri(uri, &host, &port));
  ASSIGN_OR_RETURN(std::unique_ptr<WireClient> conn, WireClient::Connect(host, port));
  return std::unique_ptr<ServerConnection>(
      new WireLoadConnection(std::move(conn), db, coll, journaled));
}

}  // namespace tigerdoc::bench
