#include "bench/mongo_connect.h"

#include <cstdlib>
#include <mutex>

namespace tigerdoc::bench {
namespace {

void InitMongocOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    mongoc_init();
    std::atexit(mongoc_cleanup);
  });
}

}  // namespace

StatusWith<mongoc_client_t*> ConnectMongo(const std::string& uri) {
  InitMongocOnce();
  bson_error_t error;
  mongoc_uri_t* parsed = mongoc_uri_new_with_error(uri.c_str(), &error);
  if (parsed == nullptr) return Status(ErrorCode::kBadValue, "bad --uri: " + std::string(error.message));
  mongoc_client_t* client = mongoc_client_new_from_uri(parsed);
  mongoc_uri_destroy(parsed);
  if (client == nullptr) return Status(ErrorCode::kBadValue, "cannot create a client for " + uri);
  mongoc_client_set_error_api(client, MONGOC_ERROR_API_VERSION_2);
  // Fail now, not in the middle of a measurement, when nobody is there.
  bson_t ping = BSON_INITIALIZER;
  BSON_APPEND_INT32(&ping, "ping", 1);
  bool ok = mongoc_client_command_simple(client, "admin", &ping, nullptr, nullptr, &error);
  bson_destroy(&ping);
  if (!ok) {
    mongoc_client_destroy(client);
    return Status(ErrorCode::kHostUnreachable, "ping " + uri + ": " + error.message);
  }
  return client;
}

}  // namespace tigerdoc::bench
