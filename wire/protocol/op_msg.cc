#include "wire/protocol/op_msg.h"
#include "wire/protocol/op_msg_probe.h"

#include <bitset>

#include "engine/bson/raw_fields.h"

#include "wire/protocol/byte_reader.h"
#include "wire/protocol/crc32c.h"
#include "wire/protocol/msg_header.h"

namespace tigerdoc::wire {
namespace {

constexpr uint32_t kKnownFlags = kChecksumPresent | kMoreToCome | kExhaustAllowed;
constexpr uint32_t kRequiredFlagMask = 0xFFFF;
constexpr size_t kFlagBytes = 4;
constexpr size_t kChecksumBytes = 4;

constexpr uint8_t kBodySection = 0;
constexpr uint8_t kSequenceSection = 1;

// MongoDB's assertion numbers for OP_MSG section rules (src/mongo/rpc/op_msg.cpp).
Status LocationError(int code, std::string message) {
  return Status(static_cast<ErrorCode>(code), std::move(message));
}

// True when `path` (possibly dotted) names a field present in `body`.
bool BodyHasPath(const bson::BsonDoc& body, const std::string& path) {
  bson_iter_t iter;
  bson_iter_t found;
  if (!bson_iter_init(&iter, body.get())) return false;
  if (path.find('.') == std::string::npos) return bson::FindTopLevel(body.get(), path, &found);
  return bson_iter_find_descendant(&iter, path.c_str(), &found);
}

Status ParseSequence(ByteReader* sections, OpMsg* msg) {
  ASSIGN_OR_RETURN(const int32_t size, sections->ReadInt32());
  // The size counts its own four bytes; anything below that cannot be framed.
  if (size < 4) {
    return Status(ErrorCode::kOverflow,
                  "document sequence size " + std::to_string(size) + " is smaller than 4");
  }
  ASSIGN_OR_RETURN(ByteReader seq, sections->ReadSubrange(static_cast<size_t>(size) - 4));
  ASSIGN_OR_RETURN(std::string identifier, seq.ReadCString());
  for (const DocumentSequence& existing : msg->sequences) {
    if (existing.identifier == identifier) {
      return LocationError(40431, "Duplicate document sequence: " + identifier);
    }
  }
  DocumentSequence out{std::move(identifier), {}};
  out.documents.reserve(seq.CountDocuments());
  while (!seq.AtEnd()) {
    ASSIGN_OR_RETURN(std::string_view doc, seq.ReadDocumentBytes());
    out.documents.push_back(doc);
  }
  msg->sequences.push_back(std::move(out));
  return Status::OK();
}

}  // namespace

uint32_t PeekOpMsgFlags(const uint8_t* message, size_t len) {
  return len < kHeaderBytes + kFlagBytes ? 0 : LoadUint32(message + kHeaderBytes);
}

StatusWith<OpMsg> ParseOpMsg(const uint8_t* message, size_t len) {
  return ParseOpMsg(message, len, nullptr);
}

StatusWith<OpMsg> ParseOpMsg(const uint8_t* message, size_t len, TopLevelProbe* body_probe) {
  INVARIANT(len >= kHeaderBytes);
  if (len < kHeaderBytes + kFlagBytes) {
    return Status(ErrorCode::kOverflow,
                  "OP_MSG of " + std::to_string(len) + " bytes is too short to hold its flagBits");
  }
  OpMsg msg;
  msg.flag_bits = PeekOpMsgFlags(message, len);
  if ((msg.flag_bits & ~kKnownFlags & kRequiredFlagMask) != 0) {
    return Status(ErrorCode::kIllegalOpMsgFlag, "Message contains illegal flags value: Ob" +
                                                    std::bitset<32>(msg.flag_bits).to_string());
  }

  size_t sections_end = len;
  if (msg.flag_bits & kChecksumPresent) {
    if (len < kHeaderBytes + kFlagBytes + kChecksumBytes) {
      return Status(ErrorCode::kOverflow, "OP_MSG has checksumPresent but no room for a checksum");
    }
    sections_end = len - kChecksumBytes;
    // Verified before the sections are read, so corrupted bytes are never
    // interpreted.
    if (Crc32c(message, sections_end) != LoadUint32(message + sections_end)) {
      return Status(ErrorCode::kChecksumMismatch, "OP_MSG checksum does not match contents");
    }
  }

  ByteReader sections(message + kHeaderBytes + kFlagBytes,
                      sections_end - kHeaderBytes - kFlagBytes);
  bool have_body = false;
  while (!sections.AtEnd()) {
    ASSIGN_OR_RETURN(const uint8_t kind, sections.ReadUint8());
    if (kind == kBodySection) {
      if (have_body) return LocationError(40430, "Multiple body sections in message");
      ASSIGN_OR_RETURN(msg.body, sections.ReadDocument(body_probe));
      have_body = true;
    } else if (kind == kSequenceSection) {
      RETURN_IF_ERROR(ParseSequence(&sections, &msg));
    } else {
      return LocationError(40432, "Unknown section kind " + std::to_string(kind));
    }
  }
  if (!have_body) return LocationError(40587, "OP_MSG messages must have a body");
  for (const DocumentSequence& seq : msg.sequences) {
    if (BodyHasPath(msg.body, seq.identifier)) {
      return LocationError(40433,
                           "Duplicate field between body and document sequence " + seq.identifier);
    }
  }
  return msg;
}

//   message := header(messageLength, request_id, response_to, 2013)
//              flagBits:uint32
//              0x00 body
//              ( 0x01 size:int32 identifier:cstring document* )*   -- one per sequence
//              crc32c:uint32                                       -- iff kChecksumPresent
std::string SerializeOpMsg(int32_t request_id, int32_t response_to, uint32_t flag_bits,
                           const bson::BsonDoc& body,
                           const std::vector<DocumentSequence>& sequences) {
  const bool checksum = (flag_bits & kChecksumPresent) != 0;
  // The whole message's size first: growing the string as it was written
  // cost two more allocations and copies per reply (issue #18).
  size_t size = kHeaderBytes + kFlagBytes + 1 + body.size() + (checksum ? kChecksumBytes : 0);
  for (const DocumentSequence& seq : sequences) {
    size += 1 + 4 + seq.identifier.size() + 1;
    for (std::string_view doc : seq.documents) size += doc.size();
  }
  std::string out;
  out.reserve(size);
  out.append(kHeaderBytes + kFlagBytes, '\0');
  StoreInt32(reinterpret_cast<uint8_t*>(out.data()) + kHeaderBytes,
             static_cast<int32_t>(flag_bits));
  out.push_back(static_cast<char>(kBodySection));
  out.append(body.bytes());
  for (const DocumentSequence& seq : sequences) {
    out.push_back(static_cast<char>(kSequenceSection));
    const size_t size_at = out.size();
    out.append(4, '\0');
    out.append(seq.identifier);
    out.push_back('\0');
    for (std::string_view doc : seq.documents) out.append(doc);
    StoreInt32(reinterpret_cast<uint8_t*>(out.data()) + size_at,
               static_cast<int32_t>(out.size() - size_at));
  }
  const size_t total = out.size() + (checksum ? kChecksumBytes : 0);
  WriteHeader({static_cast<int32_t>(total), request_id, response_to, kOpMsg},
              reinterpret_cast<uint8_t*>(out.data()));
  if (checksum) {
    const uint32_t crc = Crc32c(reinterpret_cast<const uint8_t*>(out.data()), out.size());
    out.append(kChecksumBytes, '\0');
    StoreInt32(reinterpret_cast<uint8_t*>(out.data()) + total - kChecksumBytes,
               static_cast<int32_t>(crc));
  }
  return out;
}

//   reply := header(messageLength, request_id, response_to, 2013) flagBits:uint32=0 0x00 body
std::string SerializeOpMsgReply(int32_t request_id, int32_t response_to,
                                const bson::BsonDoc& body) {
  return SerializeOpMsg(request_id, response_to, 0, body);
}

}  // namespace tigerdoc::wire
