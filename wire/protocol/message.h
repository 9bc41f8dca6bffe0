#pragma once
// ParseRequest: one whole wire message -> a command-shaped request, whatever
// the opcode it arrived in. This is the only entry point the server needs;
// op_msg.h and op_query.h hold the per-opcode codecs.
//
//   OP_MSG   -> body, document sequences and flags; db = body.$db (required,
//               a string, as in MongoDB).
//   OP_COMPRESSED -> decompressed, then parsed as the OP_MSG or OP_QUERY it
//               wraps; `header` is the wrapped message's and `compressor`
//               says how to compress the reply.
//   OP_QUERY -> only "<db>.$cmd" namespaces are commands; the query may be
//               wrapped as {$query: {...}, $readPreference: ...} or
//               {query: {...}}, and is unwrapped ($readPreference is carried
//               into the body).
//
// Error contract: a failed ParseRequest is either connection-fatal or
// answerable, and IsConnectionFatal() tells which.
//   Connection-fatal, close without replying:
//     ProtocolError (17)     framing: len < 16, messageLength outside
//                            16..48,000,000 or different from len;
//                            an OP_COMPRESSED message that does not
//                            decompress (op_compressed.h) and every
//                            opcode other than OP_MSG/OP_QUERY/OP_COMPRESSED;
//     IllegalOpMsgFlag (223) unknown required OP_MSG flag bit (0-15);
//     ChecksumMismatch (288) OP_MSG CRC-32C does not match.
//   Answerable, reply {ok: 0, errmsg, code, codeName} and keep going:
//     Overflow (15), InvalidBSON (22), BSONObjectTooLarge (10334), section
//     rule violations (Location40430/40431/40432/40433/40587), missing $db
//     (Location40571), non-string $db (TypeMismatch 14), empty db
//     (InvalidNamespace 73), OP_QUERY on a non-command namespace
//     (Location5739101), malformed $query wrapper.
//
// Thread-safety: pure functions; results are values, except the document
// sequences, which view the parsed bytes (CommandRequest::sequences).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "wire/protocol/msg_header.h"
#include "wire/protocol/op_compressed.h"
#include "wire/protocol/op_msg.h"

namespace tigerdoc::wire {

struct CommandRequest {
  std::string db;
  bson::BsonDoc body;  // The command document; its first field names the command.
  // Views into the message's bytes (op_msg.h): the caller of ParseRequest
  // keeps those alive while the request is used, or `decompressed` does.
  std::vector<DocumentSequence> sequences;
  // The bytes of a decompressed OP_COMPRESSED message, which `sequences`
  // view (shared, so a copy of the request keeps them too).
  std::shared_ptr<const std::vector<uint8_t>> decompressed;
  bool legacy_op_query = false;  // Arrived as OP_QUERY: the reply must be OP_REPLY.
  bool more_to_come = false;     // OP_MSG moreToCome: the client reads no reply.
  bool exhaust_allowed = false;  // OP_MSG exhaustAllowed.
};

struct ParsedRequest {
  MsgHeader header;
  CommandRequest request;
  // Set when the request arrived in OP_COMPRESSED.
  std::optional<Compressor> compressor;
};

// REQUIRES: `len` bytes readable at `data`. Never reads past them.
StatusWith<ParsedRequest> ParseRequest(const uint8_t* data, size_t len);

// Whether a Status from ParseRequest means "close the connection" rather
// than "answer with an error reply" (see the contract above).
bool IsConnectionFatal(const Status& status);

// Encodes `body` as the reply to a request whose header is `request_header`:
// OP_REPLY when it was OP_QUERY, OP_MSG otherwise; responseTo is the
// request's requestID.
std::string SerializeReply(const MsgHeader& request_header, int32_t reply_request_id,
                           const bson::BsonDoc& body);

}  // namespace tigerdoc::wire
