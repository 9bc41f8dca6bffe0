#pragma once
// The pieces of BSON every tigerdoc client style (ycsb_mongo_clients.h;
// the command and wire styles through ycsb_mongo_commands.h) sends, built
// in one place so that all put the same bytes on the wire:
//  - AppendRecord: {_id: key, field0: ..., field9: ...} into an open document;
//  - AppendSetField: {$set: {fieldN: value}} into an open update document;
//  - PopConnectedClient: a pooled client, connected (a pooled client
//    connects on first use: this does that before the clock runs).

#include <mongoc/mongoc.h>

#include <string>
#include <vector>

#include "bench/ycsb/ycsb_workload.h"

namespace tigerdoc::bench::ycsb {

// `fields` holds kFieldCount values, field0 first.
inline void AppendRecord(bson_t* doc, const std::string& key, const std::vector<std::string>& fields) {
  bson_append_utf8(doc, "_id", 3, key.data(), static_cast<int>(key.size()));
  for (int i = 0; i < kFieldCount; ++i) {
    const std::string& value = fields[static_cast<size_t>(i)];
    bson_append_utf8(doc, FieldName(i).c_str(), -1, value.data(), static_cast<int>(value.size()));
  }
}

inline void AppendSetField(bson_t* update, int field, const std::string& value) {
  bson_t set;
  BSON_APPEND_DOCUMENT_BEGIN(update, "$set", &set);
  bson_append_utf8(&set, FieldName(field).c_str(), -1, value.data(), static_cast<int>(value.size()));
  bson_append_document_end(update, &set);
}

inline mongoc_client_t* PopConnectedClient(mongoc_client_pool_t* pool) {
  mongoc_client_t* client = mongoc_client_pool_pop(pool);
  bson_t ping = BSON_INITIALIZER;
  BSON_APPEND_INT32(&ping, "ping", 1);
  mongoc_client_command_simple(client, "admin", &ping, nullptr, nullptr, nullptr);
  bson_destroy(&ping);
  return client;
}

}  // namespace tigerdoc::bench::ycsb
