#pragma once
// OP_MSG (opCode 2013): the message every modern driver sends.
//
//   message  := header flagBits:uint32 section+ checksum:uint32?
//   section  := 0x00 document                          (kind 0: the body, exactly one)
//             | 0x01 size:int32 identifier:cstring document*   (kind 1: a document sequence;
//                                                       size counts itself, the identifier
//                                                       and the documents)
//   checksum := CRC-32C of every preceding byte of the message, header included;
//               present iff flagBits has checksumPresent
//
// Flag bits 0-15 are "required": a receiver must reject a message that sets
// one it does not know. Bits 16-31 are optional and ignored when unknown.
//
// Parse errors and what the server should do with them (see message.h):
//   IllegalOpMsgFlag (223), ChecksumMismatch (288): connection-fatal, as in
//     MongoDB (its ConnectionFatalMessageParseError category);
//   Overflow (15) truncated structure, InvalidBSON (22) / BSONObjectTooLarge
//     (10334) bad documents, Location40430/40431/40432/40433/40587 section
//     rules: answered with an error reply.
//
// Thread-safety: pure functions; results are values, except the document
// sequences' views into the parsed message (DocumentSequence).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::wire {

inline constexpr uint32_t kChecksumPresent = 1u << 0;
inline constexpr uint32_t kMoreToCome = 1u << 1;
inline constexpr uint32_t kExhaustAllowed = 1u << 16;

// A kind-1 section: documents a command carries beside its body, e.g. the
// "documents" of an insert. The documents are views, each the bytes of one
// document: ParseOpMsg's point into the message it parsed, so they are valid
// while those bytes live (for the server, while the request runs; anything
// kept longer, such as a change event, is copied by whoever keeps it).
struct DocumentSequence {
  std::string identifier;
  std::vector<std::string_view> documents;
};

struct OpMsg {
  uint32_t flag_bits = 0;
  bson::BsonDoc body;
  std::vector<DocumentSequence> sequences;  // In wire order.
};

// Parses a whole OP_MSG message, header included (the checksum covers it).
// REQUIRES: `len` bytes readable at `message`, len >= 16 (the caller has
// framed the message; nothing past `len` is read whatever the header says).
StatusWith<OpMsg> ParseOpMsg(const uint8_t* message, size_t len);

// flagBits of a framed OP_MSG message, or 0 when it is too short to have
// them. Lets the server honour moreToCome even when parsing fails.
uint32_t PeekOpMsgFlags(const uint8_t* message, size_t len);

// Encodes an OP_MSG. The body section comes first, then the sequences in
// order; a checksum is appended when flag_bits has kChecksumPresent.
std::string SerializeOpMsg(int32_t request_id, int32_t response_to, uint32_t flag_bits,
                           const bson::BsonDoc& body,
                           const std::vector<DocumentSequence>& sequences = {});

// The reply to an OP_MSG request: flagBits 0 and one kind-0 section.
std::string SerializeOpMsgReply(int32_t request_id, int32_t response_to, const bson::BsonDoc& body);

}  // namespace tigerdoc::wire
