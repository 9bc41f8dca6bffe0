#include "bench/ycsb/ycsb_mongo.h"

#include <mongoc/mongoc.h>

#include "bench/mongo_connect.h"
#include "bench/process_cpu.h"
#include "bench/ycsb/ycsb_mongo_clients.h"
#include "bench/ycsb/ycsb_mongo_documents.h"

namespace tigerdoc::bench::ycsb {
namespace {

constexpr char kDb[] = "ycsb";

// MongoApi::kCrud: the CRUD helpers, as most applications call them.
class MongoCrudClient : public Client {
 public:
  MongoCrudClient(mongoc_client_pool_t* pool, const char* db, const char* collection)
      : pool_(pool),
        client_(PopConnectedClient(pool)),
        coll_(mongoc_client_get_collection(client_, db, collection)) {
    BSON_APPEND_INT64(&read_opts_, "limit", 1);
    BSON_APPEND_BOOL(&read_opts_, "singleBatch", true);
  }
  ~MongoCrudClient() override {
    bson_destroy(&read_opts_);
    mongoc_collection_destroy(coll_);
    mongoc_client_pool_push(pool_, client_);
  }

  bool Insert(const std::string& key, const std::vector<std::string>& fields) override {
    bson_t doc = BSON_INITIALIZER;
    AppendRecord(&doc, key, fields);
    bool ok = mongoc_collection_insert_one(coll_, &doc, nullptr, nullptr, nullptr);
    bson_destroy(&doc);
    return ok;
  }

  bool Read(const std::string& key) override {
    bson_t filter = BSON_INITIALIZER;
    BSON_APPEND_UTF8(&filter, "_id", key.c_str());
    int64_t n = Count(&filter, &read_opts_);
    bson_destroy(&filter);
    return n == 1;
  }

  bool Update(const std::string& key, int field, const std::string& value) override {
    bson_t filter = BSON_INITIALIZER, update = BSON_INITIALIZER;
    BSON_APPEND_UTF8(&filter, "_id", key.c_str());
    AppendSetField(&update, field, value);
    bson_t reply;
    bool ok = mongoc_collection_update_one(coll_, &filter, &update, nullptr, &reply, nullptr);
    bson_iter_t it;
    if (ok && bson_iter_init_find(&it, &reply, "matchedCount")) ok = bson_iter_as_int64(&it) == 1;
    bson_destroy(&reply);
    bson_destroy(&update);
    bson_destroy(&filter);
    return ok;
  }

  int64_t Scan(const std::string& start, int count) override {
    bson_t filter = BSON_INITIALIZER, range, opts = BSON_INITIALIZER, sort;
    BSON_APPEND_DOCUMENT_BEGIN(&filter, "_id", &range);
    BSON_APPEND_UTF8(&range, "$gte", start.c_str());
    bson_append_document_end(&filter, &range);
    BSON_APPEND_DOCUMENT_BEGIN(&opts, "sort", &sort);
    BSON_APPEND_INT32(&sort, "_id", 1);
    bson_append_document_end(&opts, &sort);
    BSON_APPEND_INT64(&opts, "limit", count);
    int64_t n = Count(&filter, &opts);
    bson_destroy(&opts);
    bson_destroy(&filter);
    return n;
  }

 private:
  // Runs the find and reads every document; -1 on error.
  int64_t Count(const bson_t* filter, const bson_t* opts) {
    mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll_, filter, opts, nullptr);
    const bson_t* doc;
    int64_t n = 0;
    while (mongoc_cursor_next(cursor, &doc)) ++n;
    if (mongoc_cursor_error(cursor, nullptr)) n = -1;
    mongoc_cursor_destroy(cursor);
    return n;
  }

  mongoc_client_pool_t* pool_;
  mongoc_client_t* client_;
  mongoc_collection_t* coll_;
  bson_t read_opts_ = BSON_INITIALIZER;
};

}  // namespace

bool MongoApiByName(const std::string& name, MongoApi* api) {
  if (name == "command") *api = MongoApi::kCommand;
  else if (name == "crud") *api = MongoApi::kCrud;
  else if (name == "wire") *api = MongoApi::kWire;
  else return false;
  return true;
}

std::unique_ptr<Client> NewMongoCrudClient(mongoc_client_pool_t* pool, const char* db,
                                           const char* collection) {
  return std::make_unique<MongoCrudClient>(pool, db, collection);
}

StatusWith<std::unique_ptr<MongoYcsb>> MongoYcsb::Connect(const std::string& uri, pid_t server_pid,
                                                          MongoApi api) {
  // ConnectMongo initialises the driver and fails early when nobody answers.
  ASSIGN_OR_RETURN(mongoc_client_t* probe, ConnectMongo(uri));
  mongoc_client_destroy(probe);
  bson_error_t error;
  mongoc_uri_t* parsed = mongoc_uri_new_with_error(uri.c_str(), &error);
  if (parsed == nullptr) return Status(ErrorCode::kBadValue, std::string("bad --uri: ") + error.message);
  mongoc_client_pool_t* pool = mongoc_client_pool_new(parsed);
  mongoc_uri_destroy(parsed);
  if (pool == nullptr) return Status(ErrorCode::kBadValue, "cannot create a client pool for " + uri);
  mongoc_client_pool_set_error_api(pool, MONGOC_ERROR_API_VERSION_2);
  return std::unique_ptr<MongoYcsb>(new MongoYcsb(pool, server_pid, api));
}

MongoYcsb::~MongoYcsb() { mongoc_client_pool_destroy(pool_); }

Status MongoYcsb::Reset() {
  mongoc_client_t* client = mongoc_client_pool_pop(pool_);
  mongoc_collection_t* coll = mongoc_client_get_collection(client, kDb, collection());
  bson_error_t error;
  mongoc_collection_drop(coll, &error);  // absent is fine
  bson_t cmd = BSON_INITIALIZER;
  BSON_APPEND_UTF8(&cmd, "create", collection());
  bool ok = mongoc_client_command_simple(client, kDb, &cmd, nullptr, nullptr, &error);
  bson_destroy(&cmd);
  mongoc_collection_destroy(coll);
  mongoc_client_pool_push(pool_, client);
  if (!ok) return Status(ErrorCode::kOperationFailed, std::string("create: ") + error.message);
  return Status::OK();
}

StatusWith<std::unique_ptr<Client>> MongoYcsb::NewClient() {
  if (api_ == MongoApi::kCrud) return NewMongoCrudClient(pool_, kDb, collection());
  return NewMongoCommandClient(pool_, kDb, collection());
}

double MongoYcsb::ServerCpuSeconds() { return server_pid_ > 0 ? ProcessCpuSeconds(server_pid_) : -1; }

}  // namespace tigerdoc::bench::ycsb
