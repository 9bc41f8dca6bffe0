#pragma once
// OP_QUERY (opCode 2004) and OP_REPLY (opCode 1): the legacy pair drivers
// still use for the connection handshake (isMaster/hello on "admin.$cmd")
// before they know the server speaks OP_MSG.
//
//   OP_QUERY := header flags:int32 fullCollectionName:cstring
//               numberToSkip:int32 numberToReturn:int32
//               query:document returnFieldsSelector:document?
//   OP_REPLY := header responseFlags:int32 cursorID:int64 startingFrom:int32
//               numberReturned:int32 document*
//
// Parse errors: Overflow (15) for truncation, InvalidBSON (22) /
// BSONObjectTooLarge (10334) for bad documents; none is connection-fatal
// (the server answers each with an error reply).
//
// Thread-safety: pure functions; results are values.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::wire {

struct OpQuery {
  int32_t flags = 0;
  std::string full_collection_name;  // "<db>.<collection>", e.g. "admin.$cmd"
  int32_t number_to_skip = 0;
  int32_t number_to_return = 0;
  bson::BsonDoc query;
  std::optional<bson::BsonDoc> return_fields_selector;
};

// Parses a whole OP_QUERY message, header included.
// REQUIRES: `len` bytes readable at `message`, len >= 16.
StatusWith<OpQuery> ParseOpQuery(const uint8_t* message, size_t len);

// Encodes an OP_QUERY (used by tests and tools that play the client).
std::string SerializeOpQuery(int32_t request_id, const OpQuery& query);

// The reply to an OP_QUERY command: cursorID 0, startingFrom 0,
// numberReturned 1 and `document`.
std::string SerializeOpReply(int32_t request_id, int32_t response_to, const bson::BsonDoc& document,
                             int32_t response_flags = 0);

}  // namespace tigerdoc::wire
