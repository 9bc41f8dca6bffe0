// MongoApi::kCommand: each YCSB operation is one command through
// mongoc_collection_read_command_with_opts / _write_command_with_opts (see
// ycsb_mongo_clients.h for why, bench/README.md for the measurements).
#include <mongoc/mongoc.h>

#include <cstring>

#include "bench/ycsb/ycsb_mongo_clients.h"
#include "bench/ycsb/ycsb_mongo_documents.h"

namespace tigerdoc::bench::ycsb {
namespace {

// Documents in reply.cursor.firstBatch; -1 unless the cursor is exhausted
// (id 0): every find here asks for a single batch.
int64_t FirstBatchCount(const bson_t* reply) {
  bson_iter_t it, cursor, batch;
  if (!bson_iter_init_find(&it, reply, "cursor") || !BSON_ITER_HOLDS_DOCUMENT(&it) ||
      !bson_iter_recurse(&it, &cursor)) {
    return -1;
  }
  int64_t n = -1;
  bool exhausted = false;
  while (bson_iter_next(&cursor)) {
    const char* key = bson_iter_key(&cursor);
    if (std::strcmp(key, "id") == 0) {
      exhausted = bson_iter_as_int64(&cursor) == 0;
    } else if (std::strcmp(key, "firstBatch") == 0 && BSON_ITER_HOLDS_ARRAY(&cursor) &&
               bson_iter_recurse(&cursor, &batch)) {
      n = 0;
      while (bson_iter_next(&batch)) ++n;
    }
  }
  return exhausted ? n : -1;
}

// True when a write command's reply says it wrote exactly one document.
bool WroteOne(const bson_t* reply) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, reply, "writeErrors")) return false;
  return bson_iter_init_find(&it, reply, "n") && bson_iter_as_int64(&it) == 1;
}

class MongoCommandClient : public Client {
 public:
  MongoCommandClient(mongoc_client_pool_t* pool, const char* db, const char* collection)
      : pool_(pool),
        client_(PopConnectedClient(pool)),
        coll_(mongoc_client_get_collection(client_, db, collection)),
        collection_(collection) {
  }
  ~MongoCommandClient() override {
    bson_destroy(&cmd_);
    mongoc_collection_destroy(coll_);
    mongoc_client_pool_push(pool_, client_);
  }

  bool Insert(const std::string& key, const std::vector<std::string>& fields) override {
    bson_reinit(&cmd_);
    BSON_APPEND_UTF8(&cmd_, "insert", collection_.c_str());
    bson_t documents, doc;
    BSON_APPEND_ARRAY_BEGIN(&cmd_, "documents", &documents);
    BSON_APPEND_DOCUMENT_BEGIN(&documents, "0", &doc);
    AppendRecord(&doc, key, fields);
    bson_append_document_end(&documents, &doc);
    bson_append_array_end(&cmd_, &documents);
    return Write();
  }

  bool Read(const std::string& key) override {
    bson_reinit(&cmd_);
    BSON_APPEND_UTF8(&cmd_, "find", collection_.c_str());
    bson_t filter;
    BSON_APPEND_DOCUMENT_BEGIN(&cmd_, "filter", &filter);
    bson_append_utf8(&filter, "_id", 3, key.data(), static_cast<int>(key.size()));
    bson_append_document_end(&cmd_, &filter);
    BSON_APPEND_INT64(&cmd_, "limit", 1);
    BSON_APPEND_BOOL(&cmd_, "singleBatch", true);
    return Find() == 1;
  }

  bool Update(const std::string& key, int field, const std::string& value) override {
    bson_reinit(&cmd_);
    BSON_APPEND_UTF8(&cmd_, "update", collection_.c_str());
    bson_t updates, statement, q, u;
    BSON_APPEND_ARRAY_BEGIN(&cmd_, "updates", &updates);
    BSON_APPEND_DOCUMENT_BEGIN(&updates, "0", &statement);
    BSON_APPEND_DOCUMENT_BEGIN(&statement, "q", &q);
    bson_append_utf8(&q, "_id", 3, key.data(), static_cast<int>(key.size()));
    bson_append_document_end(&statement, &q);
    BSON_APPEND_DOCUMENT_BEGIN(&statement, "u", &u);
    AppendSetField(&u, field, value);
    bson_append_document_end(&statement, &u);
    bson_append_document_end(&updates, &statement);
    bson_append_array_end(&cmd_, &updates);
    return Write();
  }

  int64_t Scan(const std::string& start, int count) override {
    bson_reinit(&cmd_);
    BSON_APPEND_UTF8(&cmd_, "find", collection_.c_str());
    bson_t filter, range, sort;
    BSON_APPEND_DOCUMENT_BEGIN(&cmd_, "filter", &filter);
    BSON_APPEND_DOCUMENT_BEGIN(&filter, "_id", &range);
    bson_append_utf8(&range, "$gte", 4, start.data(), static_cast<int>(start.size()));
    bson_append_document_end(&filter, &range);
    bson_append_document_end(&cmd_, &filter);
    BSON_APPEND_DOCUMENT_BEGIN(&cmd_, "sort", &sort);
    BSON_APPEND_INT32(&sort, "_id", 1);
    bson_append_document_end(&cmd_, &sort);
    // At most kMaxScanLength (100) records: below the server's first batch
    // of 101, so the first batch holds them all and closes the cursor (as
    // find_with_opts with a limit sends it: no singleBatch).
    BSON_APPEND_INT64(&cmd_, "limit", count);
    return Find();
  }

 private:
  int64_t Find() {
    bson_t reply;
    int64_t n = -1;
    if (mongoc_collection_read_command_with_opts(coll_, &cmd_, nullptr, nullptr, &reply, nullptr)) {
      n = FirstBatchCount(&reply);
    }
    bson_destroy(&reply);
    return n;
  }

  bool Write() {
    bson_t reply;
    bool ok = mongoc_collection_write_command_with_opts(coll_, &cmd_, nullptr, &reply, nullptr) &&
              WroteOne(&reply);
    bson_destroy(&reply);
    return ok;
  }

  mongoc_client_pool_t* pool_;
  mongoc_client_t* client_;
  mongoc_collection_t* coll_;
  std::string collection_;
  bson_t cmd_ = BSON_INITIALIZER;  // refilled by every operation
};

}  // namespace

std::unique_ptr<Client> NewMongoCommandClient(mongoc_client_pool_t* pool, const char* db,
                                              const char* collection) {
  return std::make_unique<MongoCommandClient>(pool, db, collection);
}

}  // namespace tigerdoc::bench::ycsb
