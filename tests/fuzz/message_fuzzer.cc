// libFuzzer target: a whole wire message as Connection handles it --
// framing (ParseHeader's bounds), then ParseRequest (OP_MSG with its
// sections and CRC-32C, OP_QUERY, OP_COMPRESSED and unknown opcodes, each
// document through bson_validate), then the reply the server would send.
// Properties: nothing crashes or over-reads; an accepted OP_MSG re-encodes
// to bytes that parse to the same body and sequences; a failure is
// either connection-fatal or answerable with an error reply.
// Seeds: corpus/message_fuzzer (make_corpus.py).

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "wire/protocol/message.h"
#include "wire/protocol/msg_header.h"
#include "wire/protocol/op_msg.h"
#include "wire/reply/reply_builder.h"

using namespace tigerdoc::wire;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Connection reads the 16-byte header first and refuses bad lengths
  // before reading (and so before allocating) the body.
  auto header = ParseHeader(data, size);
  auto parsed = ParseRequest(data, size);
  if (!parsed.ok()) {
    if (IsConnectionFatal(parsed.status())) return 0;
    // Answerable: the header parsed (Connection relies on it).
    if (!header.ok()) std::abort();
    (void)PeekOpMsgFlags(data, size);
    (void)SerializeReply(header.value(), 1, ErrorReply(parsed.status()));
    return 0;
  }
  if (!header.ok()) std::abort();
  const CommandRequest& req = parsed.value().request;
  if (parsed.value().header.op_code == kOpMsg) {
    std::string again = SerializeOpMsg(1, 0, 0, req.body, req.sequences);
    auto reparsed = ParseRequest(reinterpret_cast<const uint8_t*>(again.data()), again.size());
    if (!reparsed.ok() || reparsed.value().request.body.bytes() != req.body.bytes() ||
        reparsed.value().request.sequences.size() != req.sequences.size()) {
      std::abort();
    }
  }
  (void)SerializeReply(parsed.value().header, 1, req.body);
  return 0;
}
