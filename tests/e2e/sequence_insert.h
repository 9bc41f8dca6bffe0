#pragma once
// Inserts sent as drivers send them: the documents as an OP_MSG document
// sequence (kind 1) beside the body rather than as the body's `documents`
// array. The server's insert reads such documents in place, as views into
// the connection's buffer of that message (wire/protocol/op_msg.h), so these
// tests send them over a raw connection and reuse that buffer with the next
// request before looking at what was stored or reported.
//
// Thread-safety: functions of their arguments; one thread per connection.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "tests/testutil/raw_connection.h"
#include "wire/protocol/op_msg.h"

namespace tigerdoc::e2e {

// The OP_MSG for `command` ({insert: ..., documents: [...], ...} as a test
// builds it for RunCommand) with its `documents` moved into a document
// sequence, `$db: db` and the fields of `extra` (e.g. a transaction's
// session fields) added to the body.
inline std::string InsertAsSequence(int32_t request_id, const std::string& db,
                                    const bson::BsonDoc& command,
                                    const bson::BsonDoc& extra = bson::BsonDoc()) {
  bson::BsonDoc body;
  wire::DocumentSequence documents{"documents", {}};
  bson_iter_t it;
  bson_iter_init(&it, command.get());
  while (bson_iter_next(&it)) {
    if (std::string_view(bson_iter_key(&it)) != "documents") {
      bson_append_iter(body.mutable_get(), bson_iter_key(&it), -1, &it);
      continue;
    }
    bson_iter_t child;
    bson_iter_recurse(&it, &child);
    while (bson_iter_next(&child)) {
      uint32_t len;
      const uint8_t* data;
      bson_iter_document(&child, &len, &data);
      documents.documents.emplace_back(reinterpret_cast<const char*>(data), len);
    }
  }
  bson_concat(body.mutable_get(), extra.get());
  BSON_APPEND_UTF8(body.mutable_get(), "$db", db.c_str());
  return wire::SerializeOpMsg(request_id, 0, 0, body, {documents});
}

// The body of the next reply on `conn`, or {ok: 0, errmsg} when none came
// within `timeout` (a 100,000-document batch under ASan takes a while).
inline bson::BsonDoc ReadReplyBody(testutil::RawConnection& conn,
                                   std::chrono::milliseconds timeout = std::chrono::minutes(3)) {
  std::string reply;
  if (conn.ReadMessage(&reply, timeout) != testutil::RawConnection::ReadResult::kMessage) {
    return bson::BsonDoc::FromJson(R"({"ok": 0, "errmsg": "no reply"})");
  }
  auto body = testutil::DecodeOpMsgBody(reply);
  if (!body.ok()) return bson::BsonDoc::FromJson(R"({"ok": 0, "errmsg": "not an OP_MSG reply"})");
  return std::move(body).value();
}

// One raw connection, opened by the first insert, that sends each insert
// as a document sequence and returns its reply's body: every insert after
// the first reuses the buffer its predecessor was read into.
class SequenceInserter {
 public:
  bson::BsonDoc Insert(int port, const std::string& db, const bson::BsonDoc& command) {
    if (!conn_) {
      auto c = testutil::RawConnection::Connect(port);
      if (!c.ok()) return bson::BsonDoc::FromJson(R"({"ok": 0, "errmsg": "no connection"})");
      conn_.emplace(std::move(c).value());
    }
    if (!conn_->Send(InsertAsSequence(++request_id_, db, command)).ok()) {
      return bson::BsonDoc::FromJson(R"({"ok": 0, "errmsg": "send failed"})");
    }
    return ReadReplyBody(*conn_);
  }

 private:
  std::optional<testutil::RawConnection> conn_;
  int32_t request_id_ = 0;
};

}  // namespace tigerdoc::e2e
