#pragma once
// Resume tokens: the _id of every change event and a cursor's
// postBatchResumeToken, {_data: "<hex>"} as MongoDB's. Clients treat them
// as opaque; the server decodes them to a change log position, so they
// stay valid across restarts while the log keeps the rows.
//
// Grammar of the bytes behind the (uppercase) hex string, version 1:
//   0x01 | u32 seconds | u32 increment | u32 seq | u8 kind      (big-endian)
// seconds/increment/seq: the LogPosition of the event; kind: 0 an event,
// 1 a high-water mark (no event: every row at or below the position was
// read), 2 the invalidate that followed the event at the position.
// Tokens of one stream compare as their positions.

#include <string>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/changes/change_log.h"

namespace tigerdoc::engine {

struct ResumeToken {
  enum class Kind : uint8_t { kEvent = 0, kHighWaterMark = 1, kInvalidate = 2 };
  LogPosition pos;
  Kind kind = Kind::kEvent;

  // {_data: "<hex>"}
  bson::BsonDoc ToBson() const;
  std::string ToHex() const;
  // From a resume token document; BadValue (2) for anything else, naming
  // `field` (e.g. "$changeStream.resumeAfter").
  static StatusWith<ResumeToken> FromBson(const bson_t* token, const std::string& field);
  static StatusWith<ResumeToken> FromHex(std::string_view hex);
};

}  // namespace tigerdoc::engine
