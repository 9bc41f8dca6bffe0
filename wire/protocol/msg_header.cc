#include "wire/protocol/msg_header.h"

#include <string>

namespace tigerdoc::wire {

StatusWith<MsgHeader> ParseHeader(const uint8_t* data, size_t len) {
  if (len < kHeaderBytes) {
    return Status(ErrorCode::kProtocolError,
                  "message is " + std::to_string(len) + " bytes, shorter than its 16-byte header");
  }
  MsgHeader header;
  header.message_length = LoadInt32(data);
  header.request_id = LoadInt32(data + 4);
  header.response_to = LoadInt32(data + 8);
  header.op_code = LoadInt32(data + 12);
  // Same wording as MongoDB's transport layer, so logs read alike.
  if (header.message_length < kMinMessageBytes || header.message_length > kMaxMessageBytes) {
    return Status(ErrorCode::kProtocolError,
                  "recv(): message msgLen " + std::to_string(header.message_length) +
                      " is invalid. Min " + std::to_string(kMinMessageBytes) +
                      " Max: " + std::to_string(kMaxMessageBytes));
  }
  return header;
}

//   header := messageLength:int32 requestID:int32 responseTo:int32 opCode:int32  (little-endian)
void WriteHeader(const MsgHeader& header, uint8_t* out) {
  StoreInt32(out, header.message_length);
  StoreInt32(out + 4, header.request_id);
  StoreInt32(out + 8, header.response_to);
  StoreInt32(out + 12, header.op_code);
}

}  // namespace tigerdoc::wire
