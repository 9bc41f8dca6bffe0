#include "bench/ycsb/ycsb_mongo_commands.h"

#include <cstring>

#include "bench/ycsb/ycsb_mongo_documents.h"

namespace tigerdoc::bench::ycsb {
namespace {

void AppendString(bson_t* doc, const char* key, const std::string& value) {
  bson_append_utf8(doc, key, static_cast<int>(std::strlen(key)), value.data(),
                   static_cast<int>(value.size()));
}

}  // namespace

void BuildReadCommand(bson_t* cmd, const std::string& collection, const std::string& key) {
  AppendString(cmd, "find", collection);
  bson_t filter;
  BSON_APPEND_DOCUMENT_BEGIN(cmd, "filter", &filter);
  AppendString(&filter, "_id", key);
  bson_append_document_end(cmd, &filter);
  BSON_APPEND_INT64(cmd, "limit", 1);
  BSON_APPEND_BOOL(cmd, "singleBatch", true);
}

void BuildUpdateCommand(bson_t* cmd, const std::string& collection, const std::string& key,
                        int field, const std::string& value) {
  AppendString(cmd, "update", collection);
  bson_t updates, statement, q, u;
  BSON_APPEND_ARRAY_BEGIN(cmd, "updates", &updates);
  BSON_APPEND_DOCUMENT_BEGIN(&updates, "0", &statement);
  BSON_APPEND_DOCUMENT_BEGIN(&statement, "q", &q);
  AppendString(&q, "_id", key);
  bson_append_document_end(&statement, &q);
  BSON_APPEND_DOCUMENT_BEGIN(&statement, "u", &u);
  AppendSetField(&u, field, value);
  bson_append_document_end(&statement, &u);
  bson_append_document_end(&updates, &statement);
  bson_append_array_end(cmd, &updates);
}

void BuildInsertCommand(bson_t* cmd, const std::string& collection, const std::string& key,
                        const std::vector<std::string>& fields) {
  AppendString(cmd, "insert", collection);
  bson_t documents, doc;
  BSON_APPEND_ARRAY_BEGIN(cmd, "documents", &documents);
  BSON_APPEND_DOCUMENT_BEGIN(&documents, "0", &doc);
  AppendRecord(&doc, key, fields);
  bson_append_document_end(&documents, &doc);
  bson_append_array_end(cmd, &documents);
}

void BuildScanCommand(bson_t* cmd, const std::string& collection, const std::string& start,
                      int count) {
  AppendString(cmd, "find", collection);
  bson_t filter, range, sort;
  BSON_APPEND_DOCUMENT_BEGIN(cmd, "filter", &filter);
  BSON_APPEND_DOCUMENT_BEGIN(&filter, "_id", &range);
  AppendString(&range, "$gte", start);
  bson_append_document_end(&filter, &range);
  bson_append_document_end(cmd, &filter);
  BSON_APPEND_DOCUMENT_BEGIN(cmd, "sort", &sort);
  BSON_APPEND_INT32(&sort, "_id", 1);
  bson_append_document_end(cmd, &sort);
  BSON_APPEND_INT64(cmd, "limit", count);
}

int64_t FirstBatchCount(const bson_t* reply, bson_t* first) {
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
      while (bson_iter_next(&batch)) {
        if (n++ == 0 && first != nullptr) {
          const uint8_t* data = nullptr;
          uint32_t len = 0;
          if (!BSON_ITER_HOLDS_DOCUMENT(&batch)) return -1;
          bson_iter_document(&batch, &len, &data);
          if (!bson_init_static(first, data, len)) return -1;
        }
      }
    }
  }
  return exhausted ? n : -1;
}

int64_t ScanLength(const bson_t* reply, int count) {
  int64_t n = FirstBatchCount(reply);
  return n <= count ? n : -1;
}

bool WroteOne(const bson_t* reply) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, reply, "writeErrors")) return false;
  return bson_iter_init_find(&it, reply, "n") && BSON_ITER_HOLDS_NUMBER(&it) &&
         bson_iter_as_int64(&it) == 1;
}

}  // namespace tigerdoc::bench::ycsb
