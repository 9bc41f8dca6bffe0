#include "bench/index_bench_mongo.h"

#include <vector>

#include "bench/mongo_connect.h"

namespace tigerdoc::bench {
namespace {

Status MongoError(const char* what, const bson_error_t& error) {
  return Status(ErrorCode::kOperationFailed, std::string(what) + ": " + error.message);
}

}  // namespace

StatusWith<std::unique_ptr<MongoIndexBench>> MongoIndexBench::Connect(const std::string& uri,
                                                                      const std::string& db,
                                                                      const std::string& coll) {
  ASSIGN_OR_RETURN(mongoc_client_t* client, ConnectMongo(uri));
  return std::unique_ptr<MongoIndexBench>(new MongoIndexBench(client, db, coll));
}

MongoIndexBench::MongoIndexBench(mongoc_client_t* client, std::string db, std::string coll)
    : client_(client),
      db_(std::move(db)),
      coll_name_(std::move(coll)),
      coll_(mongoc_client_get_collection(client_, db_.c_str(), coll_name_.c_str())) {}

MongoIndexBench::~MongoIndexBench() {
  mongoc_collection_destroy(coll_);
  mongoc_client_destroy(client_);
}

Status MongoIndexBench::Load(int64_t count) {
  bson_error_t error;
  mongoc_collection_drop(coll_, &error);  // absent is fine
  constexpr int64_t kBatch = 1000;
  for (int64_t first = 0; first < count; first += kBatch) {
    std::vector<bson::BsonDoc> docs;
    for (int64_t i = first; i < std::min(count, first + kBatch); ++i) {
      docs.push_back(MakeIndexBenchDoc(i));
    }
    // A plain array: std::vector<const bson_t*> drops bson_t's alignment attribute.
    const bson_t* ptrs[kBatch];
    for (size_t k = 0; k < docs.size(); ++k) ptrs[k] = docs[k].get();
    if (!mongoc_collection_insert_many(coll_, ptrs, docs.size(), nullptr, nullptr, &error)) {
      return MongoError("insert_many", error);
    }
  }
  return Status::OK();
}

Status MongoIndexBench::CreateIndexes() {
  bson::BsonDoc cmd = bson::BsonDoc::FromJson(
      R"({"createIndexes": ")" + coll_name_ +
      R"(", "indexes": [{"key": {"sku": 1}, "name": "sku_1"}, {"key": {"price": 1}, "name": "price_1"}]})");
  bson_error_t error;
  if (!mongoc_client_command_simple(client_, db_.c_str(), cmd.get(), nullptr, nullptr, &error)) {
    return MongoError("createIndexes", error);
  }
  return Status::OK();
}

StatusWith<int64_t> MongoIndexBench::CountResults(const bson_t* filter) {
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll_, filter, nullptr, nullptr);
  const bson_t* doc;
  int64_t n = 0;
  while (mongoc_cursor_next(cursor, &doc)) ++n;
  bson_error_t error;
  Status status;
  if (mongoc_cursor_error(cursor, &error)) status = MongoError("find", error);
  mongoc_cursor_destroy(cursor);
  RETURN_IF_ERROR(status);
  return n;
}

StatusWith<int64_t> MongoIndexBench::PointQuery(bool indexed, const std::string& sku) {
  bson::BsonDoc filter;
  BSON_APPEND_UTF8(filter.mutable_get(), indexed ? "sku" : "sku_u", sku.c_str());
  return CountResults(filter.get());
}

StatusWith<int64_t> MongoIndexBench::RangeQuery(bool indexed, int64_t lo, int64_t hi) {
  bson::BsonDoc filter;
  bson_t range;
  BSON_APPEND_DOCUMENT_BEGIN(filter.mutable_get(), indexed ? "price" : "price_u", &range);
  BSON_APPEND_INT64(&range, "$gte", lo);
  BSON_APPEND_INT64(&range, "$lt", hi);
  bson_append_document_end(filter.mutable_get(), &range);
  return CountResults(filter.get());
}

}  // namespace tigerdoc::bench
