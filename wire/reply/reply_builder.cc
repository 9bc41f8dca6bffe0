#include "wire/reply/reply_builder.h"

#include <string>

namespace tigerdoc::wire {
namespace {

void AppendExtraFields(bson_t* out, const Status& status) {
  const std::string& extra = status.extra_bson();
  if (extra.empty()) return;
  bson_t doc;
  if (!bson_init_static(&doc, reinterpret_cast<const uint8_t*>(extra.data()), extra.size())) return;
  bson_concat(out, &doc);
}

}  // namespace

bson::BsonDoc ErrorReply(const Status& status) {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_DOUBLE(doc, "ok", 0.0);
  BSON_APPEND_UTF8(doc, "errmsg", status.reason().c_str());
  BSON_APPEND_INT32(doc, "code", status.code_number());
  std::string name(ErrorCodeName(status.code()));
  BSON_APPEND_UTF8(doc, "codeName", name.c_str());
  AppendExtraFields(doc, status);
  return out;
}

bson::BsonDoc OkReply(bson::BsonDoc fields) {
  BSON_APPEND_DOUBLE(fields.mutable_get(), "ok", 1.0);
  return fields;
}

bson::BsonDoc CursorFields(std::string_view batch_field, int64_t cursor_id, std::string_view ns,
                          const std::vector<bson::BsonDoc>& docs,
                          const bson_t* post_batch_resume_token) {
  bson::BsonDoc out;
  bson_t cursor, batch;
  bson_append_document_begin(out.mutable_get(), "cursor", -1, &cursor);
  bson_append_array_begin(&cursor, batch_field.data(), static_cast<int>(batch_field.size()), &batch);
  char index_buf[16];
  for (uint32_t i = 0; i < docs.size(); ++i) {
    const char* key;
    size_t key_len = bson_uint32_to_string(i, &key, index_buf, sizeof index_buf);
    bson_append_document(&batch, key, static_cast<int>(key_len), docs[i].get());
  }
  bson_append_array_end(&cursor, &batch);
  if (post_batch_resume_token != nullptr && !bson_empty(post_batch_resume_token)) {
    BSON_APPEND_DOCUMENT(&cursor, "postBatchResumeToken", post_batch_resume_token);
  }
  BSON_APPEND_INT64(&cursor, "id", cursor_id);
  bson_append_utf8(&cursor, "ns", 2, ns.data(), static_cast<int>(ns.size()));
  bson_append_document_end(out.mutable_get(), &cursor);
  return out;
}

void AppendWriteError(bson_t* write_errors, uint32_t array_index, int64_t statement_index,
                      const Status& status) {
  char index_buf[16];
  const char* key;
  size_t key_len = bson_uint32_to_string(array_index, &key, index_buf, sizeof index_buf);
  bson_t error;
  bson_append_document_begin(write_errors, key, static_cast<int>(key_len), &error);
  BSON_APPEND_INT32(&error, "index", static_cast<int32_t>(statement_index));
  BSON_APPEND_INT32(&error, "code", status.code_number());
  AppendExtraFields(&error, status);
  BSON_APPEND_UTF8(&error, "errmsg", status.reason().c_str());
  bson_append_document_end(write_errors, &error);
}

}  // namespace tigerdoc::wire
