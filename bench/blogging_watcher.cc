#include "bench/blogging_watcher.h"

#include <cstdio>
#include <cstring>

#include "bench/blogging_model.h"
#include "bench/mongo_connect.h"

namespace tigerdoc::bench::blogging {
namespace {

// The string at `path` in doc ("" when absent).
std::string Utf8At(const bson_t* doc, const char* path) {
  bson_iter_t it;
  if (!bson_iter_init(&it, doc) || !bson_iter_find_descendant(&it, path, &it) ||
      !BSON_ITER_HOLDS_UTF8(&it)) {
    return "";
  }
  return bson_iter_utf8(&it, nullptr);
}

}  // namespace

bool BlogWatcher::Start() {
  auto client = ConnectMongo(uri_);
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", client.status().ToString().c_str());
    return false;
  }
  client_ = client.value();
  mongoc_database_t* db = mongoc_client_get_database(client_, kDb);
  bson_t* pipeline = BCON_NEW("pipeline", "[", "{", "$match", "{", "ns.coll", "{", "$in", "[",
                              BCON_UTF8("posts"), BCON_UTF8("users"), "]", "}", "operationType", "{",
                              "$in", "[", BCON_UTF8("insert"), BCON_UTF8("update"), BCON_UTF8("replace"),
                              "]", "}", "}", "}", "]");
  bson_t* opts = BCON_NEW("fullDocument", BCON_UTF8("updateLookup"), "maxAwaitTimeMS", BCON_INT32(100));
  stream_ = mongoc_database_watch(db, pipeline, opts);
  bson_destroy(pipeline);
  bson_destroy(opts);
  mongoc_database_destroy(db);
  const bson_t* event = nullptr;
  bson_error_t error;
  // The first getMore opens the stream before any measured write.
  if (mongoc_change_stream_next(stream_, &event)) Apply(event);
  if (mongoc_change_stream_error_document(stream_, &error, nullptr)) {
    std::fprintf(stderr, "watch: %s\n", error.message);
    return false;
  }
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
  return true;
}

void BlogWatcher::Stop() {
  if (thread_.joinable()) {
    stop_ = true;
    thread_.join();
  }
  if (stream_) mongoc_change_stream_destroy(stream_);
  if (client_) mongoc_client_destroy(client_);
  stream_ = nullptr;
  client_ = nullptr;
}

void BlogWatcher::Run() {
  const bson_t* event = nullptr;
  bson_error_t error;
  while (!stop_.load()) {
    if (mongoc_change_stream_next(stream_, &event)) {
      Apply(event);
    } else if (mongoc_change_stream_error_document(stream_, &error, nullptr)) {
      std::fprintf(stderr, "watch: %s\n", error.message);
      ++errors_;
      return;
    }
  }
}

void BlogWatcher::Apply(const bson_t* event) {
  const std::string coll = Utf8At(event, "ns.coll");
  bson_iter_t it;
  bson_t full;
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  if (!bson_iter_init_find(&it, event, "fullDocument") || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    ++events_;
    return;
  }
  bson_iter_document(&it, &len, &data);
  if (!bson_init_static(&full, data, len)) return;
  const std::string type = Utf8At(&full, "type");
  const std::string user_id = Utf8At(&full, "userId");
  bson_error_t error;
  bool ok = true;
  if (coll == "posts" && type == "post") {
    mongoc_collection_t* users = mongoc_client_get_collection(client_, kDb, "users");
    bson_t* filter = BCON_NEW("userId", BCON_UTF8(user_id.c_str()), "_id",
                              BCON_UTF8(Utf8At(&full, "_id").c_str()));
    bson_t* copy = ShortForm(&full);
    bson_t* opts = BCON_NEW("upsert", BCON_BOOL(true));
    ok = mongoc_collection_replace_one(users, filter, copy, opts, nullptr, &error);
    bson_destroy(filter);
    bson_destroy(copy);
    bson_destroy(opts);
    mongoc_collection_destroy(users);
    if (ok) ++copies_;
  } else if (coll == "users" && type == "user" &&
             !Utf8At(event, "updateDescription.updatedFields.username").empty()) {
    const std::string username = Utf8At(&full, "username");
    bson_t* set = BCON_NEW("$set", "{", "userUsername", BCON_UTF8(username.c_str()), "}");
    mongoc_collection_t* users = mongoc_client_get_collection(client_, kDb, "users");
    bson_t* copies = BCON_NEW("userId", BCON_UTF8(user_id.c_str()), "type", BCON_UTF8("post"));
    ok = mongoc_collection_update_many(users, copies, set, nullptr, nullptr, &error);
    mongoc_collection_destroy(users);
    bson_destroy(copies);
    if (ok) {
      mongoc_collection_t* posts = mongoc_client_get_collection(client_, kDb, "posts");
      bson_t* written = BCON_NEW("userId", BCON_UTF8(user_id.c_str()));
      ok = mongoc_collection_update_many(posts, written, set, nullptr, nullptr, &error);
      mongoc_collection_destroy(posts);
      bson_destroy(written);
    }
    bson_destroy(set);
    if (ok) ++fan_outs_;
  }
  if (!ok) {
    std::fprintf(stderr, "watcher write: %s\n", error.message);
    ++errors_;
  }
  ++events_;
}

}  // namespace tigerdoc::bench::blogging
