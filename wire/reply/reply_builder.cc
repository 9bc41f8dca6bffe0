#include "wire/reply/reply_builder.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "engine/base/invariant.h"

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

// Written as bytes into one buffer of the exact size: the appends of
// libbson (a document, an array, each batch document, id, ns), each through
// its varargs append and the buffer's regrowth, were 2,700 instructions of a
// find by _id (issue #18, bench/README.md "CPU per find, round 5"). The bytes
// are what those appends wrote (cursor_fields_test compares them).
bson::BsonDoc CursorFields(std::string_view batch_field, int64_t cursor_id, std::string_view ns,
                          const std::vector<bson::BsonDoc>& docs,
                          const bson_t* post_batch_resume_token) {
  constexpr std::string_view kCursor = "cursor", kToken = "postBatchResumeToken", kId = "id",
                             kNs = "ns";
  const bool with_token = post_batch_resume_token != nullptr && !bson_empty(post_batch_resume_token);
  char index_buf[16];
  auto element_bytes = [](std::string_view key) { return 1 + key.size() + 1; };  // type, key, NUL
  size_t array_len = 4 + 1;
  for (uint32_t i = 0; i < docs.size(); ++i) {
    const char* key;
    const size_t key_len = bson_uint32_to_string(i, &key, index_buf, sizeof index_buf);
    array_len += element_bytes(std::string_view(key, key_len)) + docs[i].size();
  }
  const size_t cursor_len = 4 + element_bytes(batch_field) + array_len +
                            (with_token ? element_bytes(kToken) + post_batch_resume_token->len : 0) +
                            element_bytes(kId) + 8 + element_bytes(kNs) + 4 + ns.size() + 1 + 1;
  const size_t total = 4 + element_bytes(kCursor) + cursor_len + 1;
  // A batch holds at most 16 MB of documents (kMaxBatchBytes), far from
  // BSON's 2 GB bound.
  INVARIANT(total <= INT32_MAX);

  bson::BsonDoc out;
  uint8_t* const start = bson_reserve_buffer(out.mutable_get(), static_cast<uint32_t>(total));
  INVARIANT(start != nullptr);
  uint8_t* p = start;
  auto put_int32 = [&p](size_t v) {
    const uint32_t le = BSON_UINT32_TO_LE(static_cast<uint32_t>(v));
    std::memcpy(p, &le, 4);
    p += 4;
  };
  auto put_bytes = [&p](const void* data, size_t n) {
    std::memcpy(p, data, n);
    p += n;
  };
  auto put_element = [&p, &put_bytes](bson_type_t type, std::string_view key) {
    *p++ = static_cast<uint8_t>(type);
    put_bytes(key.data(), key.size());
    *p++ = 0;
  };
  put_int32(total);
  put_element(BSON_TYPE_DOCUMENT, kCursor);
  put_int32(cursor_len);
  put_element(BSON_TYPE_ARRAY, batch_field);
  put_int32(array_len);
  for (uint32_t i = 0; i < docs.size(); ++i) {
    const char* key;
    const size_t key_len = bson_uint32_to_string(i, &key, index_buf, sizeof index_buf);
    put_element(BSON_TYPE_DOCUMENT, std::string_view(key, key_len));
    put_bytes(docs[i].data(), docs[i].size());
  }
  *p++ = 0;  // end of the batch
  if (with_token) {
    put_element(BSON_TYPE_DOCUMENT, kToken);
    put_bytes(bson_get_data(post_batch_resume_token), post_batch_resume_token->len);
  }
  put_element(BSON_TYPE_INT64, kId);
  const uint64_t id_le = BSON_UINT64_TO_LE(static_cast<uint64_t>(cursor_id));
  put_bytes(&id_le, 8);
  put_element(BSON_TYPE_UTF8, kNs);
  put_int32(ns.size() + 1);
  put_bytes(ns.data(), ns.size());
  *p++ = 0;  // end of the ns string
  *p++ = 0;  // end of cursor
  *p++ = 0;  // end of the reply
  INVARIANT(p == start + total);
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
  // mongod's order (write_ops::WriteError::serialize): errmsg, then the
  // error's extra fields (keyPattern, keyValue of a duplicate key).
  BSON_APPEND_UTF8(&error, "errmsg", status.reason().c_str());
  AppendExtraFields(&error, status);
  bson_append_document_end(write_errors, &error);
}

}  // namespace tigerdoc::wire
