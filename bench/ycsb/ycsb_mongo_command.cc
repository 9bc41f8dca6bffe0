// MongoApi::kCommand: each YCSB operation is one command through
// mongoc_collection_read_command_with_opts / _write_command_with_opts (see
// ycsb_mongo_clients.h for why, bench/README.md for the measurements).
#include <mongoc/mongoc.h>

#include "bench/ycsb/ycsb_mongo_clients.h"
#include "bench/ycsb/ycsb_mongo_commands.h"
#include "bench/ycsb/ycsb_mongo_documents.h"

namespace tigerdoc::bench::ycsb {
namespace {

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
    BuildInsertCommand(&cmd_, collection_, key, fields);
    return Write();
  }

  bool Read(const std::string& key) override {
    bson_reinit(&cmd_);
    BuildReadCommand(&cmd_, collection_, key);
    return Find(1) == 1;
  }

  bool Update(const std::string& key, int field, const std::string& value) override {
    bson_reinit(&cmd_);
    BuildUpdateCommand(&cmd_, collection_, key, field, value);
    return Write();
  }

  int64_t Scan(const std::string& start, int count) override {
    bson_reinit(&cmd_);
    BuildScanCommand(&cmd_, collection_, start, count);
    return Find(count);
  }

 private:
  // Documents found (at most `limit`), -1 on error.
  int64_t Find(int limit) {
    bson_t reply;
    int64_t n = -1;
    if (mongoc_collection_read_command_with_opts(coll_, &cmd_, nullptr, nullptr, &reply, nullptr)) {
      n = ScanLength(&reply, limit);
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
