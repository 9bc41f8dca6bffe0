#include "wire/protocol/op_query.h"

#include "wire/protocol/byte_reader.h"
#include "wire/protocol/msg_header.h"

namespace tigerdoc::wire {

StatusWith<OpQuery> ParseOpQuery(const uint8_t* message, size_t len) {
  INVARIANT(len >= kHeaderBytes);
  ByteReader reader(message + kHeaderBytes, len - kHeaderBytes);
  OpQuery out;
  ASSIGN_OR_RETURN(out.flags, reader.ReadInt32());
  ASSIGN_OR_RETURN(out.full_collection_name, reader.ReadCString());
  ASSIGN_OR_RETURN(out.number_to_skip, reader.ReadInt32());
  ASSIGN_OR_RETURN(out.number_to_return, reader.ReadInt32());
  ASSIGN_OR_RETURN(out.query, reader.ReadDocument());
  if (!reader.AtEnd()) {
    ASSIGN_OR_RETURN(bson::BsonDoc selector, reader.ReadDocument());
    out.return_fields_selector = std::move(selector);
  }
  if (!reader.AtEnd()) {
    return Status(ErrorCode::kInvalidBSON, "OP_QUERY has " + std::to_string(reader.remaining()) +
                                               " trailing bytes after its returnFieldsSelector");
  }
  return out;
}

//   OP_QUERY := header(messageLength, request_id, 0, 2004) flags:int32
//               fullCollectionName:cstring numberToSkip:int32 numberToReturn:int32
//               query:document returnFieldsSelector:document?
std::string SerializeOpQuery(int32_t request_id, const OpQuery& query) {
  std::string out(kHeaderBytes + 4, '\0');
  StoreInt32(reinterpret_cast<uint8_t*>(out.data()) + kHeaderBytes, query.flags);
  out.append(query.full_collection_name);
  out.push_back('\0');
  const size_t ints_at = out.size();
  out.append(8, '\0');
  StoreInt32(reinterpret_cast<uint8_t*>(out.data()) + ints_at, query.number_to_skip);
  StoreInt32(reinterpret_cast<uint8_t*>(out.data()) + ints_at + 4, query.number_to_return);
  out.append(query.query.bytes());
  if (query.return_fields_selector) out.append(query.return_fields_selector->bytes());
  WriteHeader({static_cast<int32_t>(out.size()), request_id, 0, kOpQuery},
              reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

//   OP_REPLY := header(messageLength, request_id, response_to, 1)
//               responseFlags:int32 cursorID:int64=0 startingFrom:int32=0
//               numberReturned:int32=1 document
std::string SerializeOpReply(int32_t request_id, int32_t response_to, const bson::BsonDoc& document,
                             int32_t response_flags) {
  std::string out(kHeaderBytes + 4 + 8 + 4 + 4, '\0');
  auto* p = reinterpret_cast<uint8_t*>(out.data());
  StoreInt32(p + kHeaderBytes, response_flags);
  // cursorID (8 bytes) and startingFrom stay zero.
  StoreInt32(p + kHeaderBytes + 16, 1);
  out.append(document.bytes());
  WriteHeader({static_cast<int32_t>(out.size()), request_id, response_to, kOpReply},
              reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

}  // namespace tigerdoc::wire
