// libFuzzer target for the wire parser (clang only; see CMakeLists.txt).
// Instrument the library too, or the fuzzer is blind to the parser:
//   CC=clang CXX=clang++ cmake -S . -B /tmp/build-fuzz -DTIGERDOC_BUILD_BENCH=OFF \
//     -DTIGERDOC_SANITIZE=address,undefined -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link
//   cmake --build /tmp/build-fuzz --target wire_message_fuzzer
//   /tmp/build-fuzz/tests/wire/protocol/wire_message_fuzzer -max_len=4096 corpus_dir/
// Seed the corpus with the arrays in golden_messages.h.
// Properties: ParseRequest never crashes or over-reads, and an accepted
// OP_MSG re-encodes to bytes that parse to the same body.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "wire/protocol/message.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tigerdoc::wire;
  auto parsed = ParseRequest(data, size);
  if (!parsed.ok()) {
    (void)IsConnectionFatal(parsed.status());
    return 0;
  }
  const CommandRequest& req = parsed.value().request;
  if (parsed.value().header.op_code == kOpMsg) {
    std::string again = SerializeOpMsg(1, 0, 0, req.body, req.sequences);
    auto reparsed = ParseRequest(reinterpret_cast<const uint8_t*>(again.data()), again.size());
    if (!reparsed.ok() || reparsed.value().request.body.bytes() != req.body.bytes()) std::abort();
  }
  (void)SerializeReply(parsed.value().header, 1, req.body);
  return 0;
}
