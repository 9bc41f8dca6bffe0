#include "bench/server_backend.h"

#include "bench/mongo_connect.h"
#include "bench/process_cpu.h"

#include <mongoc/mongoc.h>

#include <sstream>
#include <vector>

namespace tigerdoc::bench {
namespace {

class ServerWorker : public ServerConnection {
 public:
  ServerWorker(mongoc_client_t* client, const std::string& db, const std::string& coll,
               bool journaled)
      : client_(client), coll_(mongoc_client_get_collection(client, db.c_str(), coll.c_str())) {
    if (journaled) {
      mongoc_write_concern_t* wc = mongoc_write_concern_new();
      mongoc_write_concern_set_journal(wc, true);
      mongoc_write_concern_append(wc, &write_opts_);
      mongoc_write_concern_destroy(wc);
    }
    bson_concat(&insert_many_opts_, &write_opts_);
    BSON_APPEND_BOOL(&insert_many_opts_, "validate", false);
    BSON_APPEND_INT64(&find_opts_, "limit", 1);
    BSON_APPEND_BOOL(&find_opts_, "singleBatch", true);
    bson_t inc;
    BSON_APPEND_DOCUMENT_BEGIN(&update_, "$inc", &inc);
    BSON_APPEND_INT32(&inc, "n", 1);
    bson_append_document_end(&update_, &inc);
  }
  ~ServerWorker() override {
    bson_destroy(&find_opts_);
    bson_destroy(&write_opts_);
    bson_destroy(&insert_many_opts_);
    delete[] batch_ptrs_;
    bson_destroy(&update_);
    mongoc_collection_destroy(coll_);
    mongoc_client_destroy(client_);
  }

  bool Insert(int64_t id) override {
    bson::BsonDoc doc = MakeLoadDoc(id);
    bson_t reply;
    bool ok = mongoc_collection_insert_one(coll_, doc.get(), &write_opts_, &reply, nullptr);
    bson_iter_t it;
    ok = ok && bson_iter_init_find(&it, &reply, "insertedCount") && bson_iter_as_int64(&it) == 1;
    bson_destroy(&reply);
    return ok;
  }

  // The documents are built once per worker and only their _ids change
  // between batches (overwritten in place), and libmongoc's client-side
  // check of every key is off (validate: false; the server validates): what
  // the client still spends per document is libmongoc's copy into the
  // request, so the load measures the server rather than the building of
  // documents (bench/README.md, "insertMany in place").
  bool InsertBatch(int64_t first_id, int count) override {
    if (static_cast<int>(batch_.size()) != count) {
      batch_.clear();
      batch_.reserve(count);
      for (int i = 0; i < count; ++i) batch_.push_back(MakeLoadDoc(first_id + i));
      delete[] batch_ptrs_;
      batch_ptrs_ = new const bson_t*[count];  // plain: bson_t is over-aligned (see Reset)
      for (int i = 0; i < count; ++i) batch_ptrs_[i] = batch_[i].get();
    }
    for (int i = 0; i < count; ++i) {
      bson_iter_t id;
      // MakeLoadDoc's _id is an int64, first: the same size for every id.
      if (!bson_iter_init_find(&id, batch_[i].get(), "_id")) return false;
      bson_iter_overwrite_int64(&id, first_id + i);
    }
    bson_t reply;
    bool ok = mongoc_collection_insert_many(coll_, batch_ptrs_, count, &insert_many_opts_,
                                            &reply, nullptr);
    bson_iter_t it;
    ok = ok && bson_iter_init_find(&it, &reply, "insertedCount") && bson_iter_as_int64(&it) == count;
    bson_destroy(&reply);
    return ok;
  }

  bool ReadById(int64_t id) override {
    bson_t filter = BSON_INITIALIZER;
    BSON_APPEND_INT64(&filter, "_id", id);
    mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll_, &filter, &find_opts_, nullptr);
    const bson_t* doc = nullptr;
    bool found = mongoc_cursor_next(cursor, &doc) && HasLoadId(doc, id);
    bool ok = found && !mongoc_cursor_error(cursor, nullptr);
    mongoc_cursor_destroy(cursor);
    bson_destroy(&filter);
    return ok;
  }

  bool IncrementById(int64_t id) override {
    bson_t filter = BSON_INITIALIZER;
    BSON_APPEND_INT64(&filter, "_id", id);
    bson_t reply;
    bool ok = mongoc_collection_update_one(coll_, &filter, &update_, &write_opts_, &reply, nullptr);
    // A miss is an error for the benchmark: every id it updates exists, and
    // $inc always changes the document it matched.
    bson_iter_t it;
    ok = ok && bson_iter_init_find(&it, &reply, "matchedCount") && bson_iter_as_int64(&it) == 1 &&
         bson_iter_init_find(&it, &reply, "modifiedCount") && bson_iter_as_int64(&it) == 1;
    bson_destroy(&reply);
    bson_destroy(&filter);
    return ok;
  }

  bool FindNone() override {
    bson_t filter = BSON_INITIALIZER;
    BSON_APPEND_UTF8(&filter, "v", kNoSuchValue);
    mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll_, &filter, nullptr, nullptr);
    const bson_t* doc = nullptr;
    int64_t found = 0;
    while (mongoc_cursor_next(cursor, &doc)) ++found;
    bool ok = found == 0 && !mongoc_cursor_error(cursor, nullptr);
    mongoc_cursor_destroy(cursor);
    bson_destroy(&filter);
    return ok;
  }

 private:
  mongoc_client_t* client_;
  mongoc_collection_t* coll_;
  bson_t find_opts_ = BSON_INITIALIZER;
  bson_t update_ = BSON_INITIALIZER;
  bson_t write_opts_ = BSON_INITIALIZER;  // {writeConcern: {j: true}} or empty
  bson_t insert_many_opts_ = BSON_INITIALIZER;  // write_opts_ and validate: false
  std::vector<bson::BsonDoc> batch_;             // InsertBatch's documents
  const bson_t** batch_ptrs_ = nullptr;          // batch_'s, for insert_many
};

}  // namespace

const char* LoadClientName(LoadClient client) {
  return client == LoadClient::kWire ? "wire" : "libmongoc";
}

bool ParseLoadClients(const std::string& list, std::vector<LoadClient>* out) {
  out->clear();
  std::stringstream ss(list);
  for (std::string item; std::getline(ss, item, ',');) {
    if (item == "libmongoc") {
      out->push_back(LoadClient::kLibmongoc);
    } else if (item == "wire") {
      out->push_back(LoadClient::kWire);
    } else {
      return false;
    }
  }
  return !out->empty();
}

bool HasLoadId(const bson_t* doc, int64_t id) {
  bson_iter_t it;
  return doc != nullptr && bson_iter_init_find(&it, doc, "_id") && BSON_ITER_HOLDS_INT64(&it) &&
         bson_iter_int64(&it) == id;
}

StatusWith<std::unique_ptr<ServerConnection>> ConnectServer(LoadClient client, const std::string& uri,
                                                            const std::string& db,
                                                            const std::string& coll, bool journaled) {
  if (client == LoadClient::kWire) return ConnectWireLoad(uri, db, coll, journaled);
  ASSIGN_OR_RETURN(mongoc_client_t* mongo, ConnectMongo(uri));
  return std::unique_ptr<ServerConnection>(new ServerWorker(mongo, db, coll, journaled));
}

ServerBackend::ServerBackend(std::string uri, std::string db, std::string coll,
                             std::string create_options, pid_t server_pid, LoadClient client)
    : uri_(std::move(uri)),
      db_(std::move(db)),
      coll_(std::move(coll)),
      create_options_(std::move(create_options)),
      server_pid_(server_pid),
      client_(client) {}

std::string ServerBackend::name() const {
  return client_ == LoadClient::kWire ? "tigerdoc-wire" : "tigerdoc";
}

double ServerBackend::ServerCpuSeconds() {
  return server_pid_ > 0 ? ProcessCpuSeconds(server_pid_) : -1;
}

Status ServerBackend::Reset(int64_t count) {
  ASSIGN_OR_RETURN(mongoc_client_t* client, ConnectMongo(uri_));
  mongoc_collection_t* coll = mongoc_client_get_collection(client, db_.c_str(), coll_.c_str());
  bson_error_t error;
  // Dropping a missing collection fails on MongoDB < 7.0: not an error here.
  mongoc_collection_drop(coll, &error);
  Status st;
  if (!create_options_.empty()) {
    bson::BsonDoc options = bson::BsonDoc::FromJson(create_options_);
    bson::BsonDoc cmd;
    BSON_APPEND_UTF8(cmd.mutable_get(), "create", coll_.c_str());
    bson_concat(cmd.mutable_get(), options.get());
    mongoc_database_t* db = mongoc_client_get_database(client, db_.c_str());
    if (!mongoc_database_command_simple(db, cmd.get(), nullptr, nullptr, &error)) {
      st = Status(ErrorCode::kOperationFailed, std::string("create: ") + error.message);
    }
    mongoc_database_destroy(db);
  }
  constexpr int64_t kBatch = 1000;
  for (int64_t start = 0; start < count && st.ok(); start += kBatch) {
    std::vector<bson::BsonDoc> docs;
    for (int64_t id = start; id < std::min(count, start + kBatch); ++id) docs.push_back(MakeLoadDoc(id));
    // A plain array: bson_t is over-aligned, so std::vector<const bson_t*>
    // draws -Wignored-attributes.
    const bson_t** ptrs = new const bson_t*[docs.size()];
    for (size_t i = 0; i < docs.size(); ++i) ptrs[i] = docs[i].get();
    if (!mongoc_collection_insert_many(coll, ptrs, docs.size(), nullptr, nullptr, &error)) {
      st = Status(ErrorCode::kOperationFailed, std::string("preload insert_many: ") + error.message);
    }
    delete[] ptrs;
  }
  mongoc_collection_destroy(coll);
  mongoc_client_destroy(client);
  return st;
}

StatusWith<std::unique_ptr<Worker>> ServerBackend::NewWorker() {
  ASSIGN_OR_RETURN(std::unique_ptr<ServerConnection> conn,
                   ConnectServer(client_, uri_, db_, coll_, journaled_));
  return std::unique_ptr<Worker>(std::move(conn));
}

}  // namespace tigerdoc::bench
