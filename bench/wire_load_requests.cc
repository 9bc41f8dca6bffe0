#include "bench/wire_load_requests.h"

#include "bench/server_backend.h"
#include "bench/ycsb/ycsb_mongo_commands.h"

namespace tigerdoc::bench {

void BuildReadById(bson_t* cmd, const std::string& coll, int64_t id) {
  bson_reinit(cmd);
  BSON_APPEND_UTF8(cmd, "find", coll.c_str());
  bson_t filter;
  BSON_APPEND_DOCUMENT_BEGIN(cmd, "filter", &filter);
  BSON_APPEND_INT64(&filter, "_id", id);
  bson_append_document_end(cmd, &filter);
  BSON_APPEND_INT64(cmd, "limit", 1);
  BSON_APPEND_BOOL(cmd, "singleBatch", true);
}

std::string CheckReadByIdReply(const bson_t* reply, int64_t id) {
  bson_t found;
  const int64_t n = ycsb::FirstBatchCount(reply, &found);
  if (n != 1) return "found " + std::to_string(n) + " documents";
  if (!HasLoadId(&found, id)) return "found another document";
  return "";
}

void BuildFindNone(bson_t* cmd, const std::string& coll) {
  bson_reinit(cmd);
  BSON_APPEND_UTF8(cmd, "find", coll.c_str());
  bson_t filter;
  BSON_APPEND_DOCUMENT_BEGIN(cmd, "filter", &filter);
  BSON_APPEND_UTF8(&filter, "v", kNoSuchValue);
  bson_append_document_end(cmd, &filter);
}

std::string CheckFindNoneReply(const bson_t* reply) {
  const int64_t n = ycsb::FirstBatchCount(reply);
  if (n != 0) return "found " + std::to_string(n) + " documents";
  return "";
}

}  // namespace tigerdoc::bench
