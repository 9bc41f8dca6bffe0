#pragma once
// OP_COMPRESSED (opcode 2012): another message's body, compressed.
//
//   message := header(opCode = 2012)
//              originalOpcode:int32      the wrapped message's opcode (OP_MSG or OP_QUERY)
//              uncompressedSize:int32    bytes of the wrapped message after its header
//              compressorId:uint8        0 noop, 1 snappy, 2 zlib, 3 zstd
//              compressedMessage:bytes   the wrapped message without its header
//
// Compressors are negotiated in hello: the client lists the ones it has
// (`compression: ["zstd", ...]`) and the server answers those it has too,
// in its own order of preference (snappy, zstd, zlib: mongod's default).
// The server answers a compressed request compressed with the same
// compressor, except the replies to the authentication and handshake
// commands, which MongoDB's compression spec keeps in the clear.
//
// Thread-safety: pure functions.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bson/bson.h>

#include "engine/base/status.h"

namespace tigerdoc::wire {

enum class Compressor : uint8_t { kNoop = 0, kSnappy = 1, kZlib = 2, kZstd = 3 };

// Preference order when negotiating (mongod's default
// net.compression.compressors "snappy,zstd,zlib").
inline constexpr std::array<std::string_view, 3> kServerCompressors = {"snappy", "zstd", "zlib"};

std::optional<Compressor> CompressorByName(std::string_view name);

// Unwraps an OP_COMPRESSED message (header included) into the message it
// carries (header included: same requestID and responseTo, the original
// opcode, messageLength = 16 + uncompressedSize). ProtocolError (17,
// connection-fatal) for an unknown compressor, an original opcode other
// than OP_MSG/OP_QUERY, a size above 48,000,000 bytes or one that does not
// match the data, and data the compressor cannot decode.
StatusWith<std::vector<uint8_t>> DecompressMessage(const uint8_t* data, size_t len,
                                                   Compressor* compressor);

// Wraps a whole serialized message (header included) in OP_COMPRESSED.
std::string CompressMessage(std::string_view message, Compressor compressor);

// serverStatus's network.compression, as mongod reports it: per
// compressor, bytes into and out of compression and decompression since
// start-up: {snappy: {compressor: {bytesIn, bytesOut}, decompressor:
// {bytesIn, bytesOut}}, zstd: ..., zlib: ...}.
void AppendCompressionStatus(bson_t* network);

}  // namespace tigerdoc::wire
