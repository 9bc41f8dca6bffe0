#include "wire/protocol/op_compressed.h"

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include <atomic>

#include "wire/protocol/msg_header.h"

namespace tigerdoc::wire {
namespace {

// originalOpcode, uncompressedSize, compressorId.
constexpr size_t kPrefixBytes = 4 + 4 + 1;

// Process-wide byte counters per compressor id (0..3) for serverStatus.
struct Counters {
  std::atomic<int64_t> compressor_in{0}, compressor_out{0};
  std::atomic<int64_t> decompressor_in{0}, decompressor_out{0};
};
Counters& CountersOf(Compressor compressor) {
  static Counters counters[4];
  return counters[static_cast<size_t>(compressor)];
}

Status Corrupt(const std::string& why) {
  return Status(ErrorCode::kProtocolError, "invalid OP_COMPRESSED message: " + why);
}

// Decodes `in` into exactly `size` bytes at `out`.
Status Decode(Compressor compressor, std::string_view in, uint8_t* out, size_t size) {
  switch (compressor) {
    case Compressor::kNoop:
      if (in.size() != size) return Corrupt("uncompressedSize does not match");
      std::copy(in.begin(), in.end(), out);
      return Status::OK();
    case Compressor::kSnappy: {
      size_t length = 0;
      if (snappy_uncompressed_length(in.data(), in.size(), &length) != SNAPPY_OK ||
          length != size) {
        return Corrupt("uncompressedSize does not match the snappy data");
      }
      if (snappy_uncompress(in.data(), in.size(), reinterpret_cast<char*>(out), &length) !=
          SNAPPY_OK) {
        return Corrupt("snappy data does not decode");
      }
      return Status::OK();
    }
    case Compressor::kZlib: {
      uLongf length = size;
      if (uncompress(out, &length, reinterpret_cast<const Bytef*>(in.data()), in.size()) != Z_OK ||
          length != size) {
        return Corrupt("zlib data does not decode to uncompressedSize bytes");
      }
      return Status::OK();
    }
    case Compressor::kZstd: {
      const size_t length = ZSTD_decompress(out, size, in.data(), in.size());
      if (ZSTD_isError(length) || length != size) {
        return Corrupt("zstd data does not decode to uncompressedSize bytes");
      }
      return Status::OK();
    }
  }
  return Corrupt("unknown compressor id " + std::to_string(static_cast<int>(compressor)));
}

// Whether `in` can decode to `size` bytes, decided from the payload
// without decoding it: the size the format itself records (snappy's
// preamble, zstd's frame header) must equal the claim, and no format can
// expand beyond its maximal ratio (snappy: a 3-byte copy yields at most 64
// bytes; deflate: at most 1032:1).
Status CheckClaimedSize(Compressor compressor, std::string_view in, size_t size) {
  constexpr size_t kSnappyMaxRatio = 22, kDeflateMaxRatio = 1032, kSlackBytes = 64;
  switch (compressor) {
    case Compressor::kNoop:
      if (in.size() != size) return Corrupt("uncompressedSize does not match");
      return Status::OK();
    case Compressor::kSnappy: {
      size_t length = 0;
      if (snappy_uncompressed_length(in.data(), in.size(), &length) != SNAPPY_OK ||
          length != size || size > in.size() * kSnappyMaxRatio + kSlackBytes) {
        return Corrupt("uncompressedSize does not match the snappy data");
      }
      return Status::OK();
    }
    case Compressor::kZlib:
      if (size > in.size() * kDeflateMaxRatio + kSlackBytes) {
        return Corrupt("uncompressedSize " + std::to_string(size) + " is more than " +
                       std::to_string(in.size()) + " bytes of zlib data can hold");
      }
      return Status::OK();
    case Compressor::kZstd: {
      // Every driver's zstd (one-shot ZSTD_compress or equivalent) records the
      // content size; a frame without it is refused rather than trusted.
      const unsigned long long length = ZSTD_getFrameContentSize(in.data(), in.size());
      if (length != size) return Corrupt("uncompressedSize does not match the zstd frame");
      return Status::OK();
    }
  }
  return Corrupt("unknown compressor id " + std::to_string(static_cast<int>(compressor)));
}

std::string Encode(Compressor compressor, std::string_view in) {
  std::string out;
  switch (compressor) {
    case Compressor::kNoop:
      return std::string(in);
    case Compressor::kSnappy: {
      size_t length = snappy_max_compressed_length(in.size());
      out.resize(length);
      INVARIANT(snappy_compress(in.data(), in.size(), out.data(), &length) == SNAPPY_OK);
      out.resize(length);
      return out;
    }
    case Compressor::kZlib: {
      uLongf length = compressBound(in.size());
      out.resize(length);
      INVARIANT(compress2(reinterpret_cast<Bytef*>(out.data()), &length,
                          reinterpret_cast<const Bytef*>(in.data()), in.size(),
                          Z_DEFAULT_COMPRESSION) == Z_OK);
      out.resize(length);
      return out;
    }
    case Compressor::kZstd: {
      out.resize(ZSTD_compressBound(in.size()));
      // Level 1: replies are compressed on the request's thread, so speed
      // matters more than the last few percent of size.
      const size_t length = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 1);
      INVARIANT(!ZSTD_isError(length));
      out.resize(length);
      return out;
    }
  }
  return std::string(in);
}

}  // namespace

std::optional<Compressor> CompressorByName(std::string_view name) {
  if (name == "snappy") return Compressor::kSnappy;
  if (name == "zlib") return Compressor::kZlib;
  if (name == "zstd") return Compressor::kZstd;
  if (name == "noop") return Compressor::kNoop;
  return std::nullopt;
}

StatusWith<std::vector<uint8_t>> DecompressMessage(const uint8_t* data, size_t len,
                                                   Compressor* compressor) {
  if (len < kHeaderBytes + kPrefixBytes) return Corrupt("too short");
  const uint8_t* prefix = data + kHeaderBytes;
  const int32_t original_opcode = LoadInt32(prefix);
  const int32_t uncompressed_size = LoadInt32(prefix + 4);
  const uint8_t id = prefix[8];
  if (original_opcode != kOpMsg && original_opcode != kOpQuery) {
    return Corrupt("cannot wrap opcode " + std::to_string(original_opcode));
  }
  if (uncompressed_size < 0 || uncompressed_size > kMaxMessageBytes - kHeaderBytes) {
    return Corrupt("uncompressedSize " + std::to_string(uncompressed_size) + " out of range");
  }
  if (id > static_cast<uint8_t>(Compressor::kZstd)) {
    return Corrupt("unknown compressor id " + std::to_string(id));
  }
  *compressor = static_cast<Compressor>(id);
  const size_t payload_at = kHeaderBytes + kPrefixBytes;
  const std::string_view payload(reinterpret_cast<const char*>(data) + payload_at, len - payload_at);
  // The claim is checked against the payload before anything is allocated:
  // a 30-byte message (before authentication) must not cost 48 MB.
  RETURN_IF_ERROR(CheckClaimedSize(*compressor, payload, static_cast<size_t>(uncompressed_size)));
  std::vector<uint8_t> out(kHeaderBytes + static_cast<size_t>(uncompressed_size));
  RETURN_IF_ERROR(Decode(*compressor, payload, out.data() + kHeaderBytes,
                         static_cast<size_t>(uncompressed_size)));
  Counters& counters = CountersOf(*compressor);
  counters.decompressor_in.fetch_add(static_cast<int64_t>(len - payload_at), std::memory_order_relaxed);
  counters.decompressor_out.fetch_add(uncompressed_size, std::memory_order_relaxed);
  std::copy(data, data + kHeaderBytes, out.begin());
  StoreInt32(out.data(), static_cast<int32_t>(out.size()));
  StoreInt32(out.data() + 12, original_opcode);
  return out;
}

std::string CompressMessage(std::string_view message, Compressor compressor) {
  INVARIANT(message.size() >= kHeaderBytes);
  const std::string compressed = Encode(compressor, message.substr(kHeaderBytes));
  Counters& counters = CountersOf(compressor);
  counters.compressor_in.fetch_add(static_cast<int64_t>(message.size() - kHeaderBytes),
                                   std::memory_order_relaxed);
  counters.compressor_out.fetch_add(static_cast<int64_t>(compressed.size()),
                                    std::memory_order_relaxed);
  std::string out(kHeaderBytes + kPrefixBytes, '\0');
  auto* bytes = reinterpret_cast<uint8_t*>(out.data());
  const auto* original = reinterpret_cast<const uint8_t*>(message.data());
  StoreInt32(bytes + 4, LoadInt32(original + 4));   // requestID
  StoreInt32(bytes + 8, LoadInt32(original + 8));   // responseTo
  StoreInt32(bytes + 12, kOpCompressed);
  StoreInt32(bytes + 16, LoadInt32(original + 12));  // originalOpcode
  StoreInt32(bytes + 20, static_cast<int32_t>(message.size() - kHeaderBytes));
  bytes[24] = static_cast<uint8_t>(compressor);
  out += compressed;
  StoreInt32(reinterpret_cast<uint8_t*>(out.data()), static_cast<int32_t>(out.size()));
  return out;
}

void AppendCompressionStatus(bson_t* network) {
  bson_t compression;
  bson_append_document_begin(network, "compression", -1, &compression);
  for (std::string_view name : kServerCompressors) {
    const Counters& counters = CountersOf(*CompressorByName(name));
    bson_t entry, compressor, decompressor;
    bson_append_document_begin(&compression, name.data(), static_cast<int>(name.size()), &entry);
    bson_append_document_begin(&entry, "compressor", -1, &compressor);
    BSON_APPEND_INT64(&compressor, "bytesIn", counters.compressor_in.load());
    BSON_APPEND_INT64(&compressor, "bytesOut", counters.compressor_out.load());
    bson_append_document_end(&entry, &compressor);
    bson_append_document_begin(&entry, "decompressor", -1, &decompressor);
    BSON_APPEND_INT64(&decompressor, "bytesIn", counters.decompressor_in.load());
    BSON_APPEND_INT64(&decompressor, "bytesOut", counters.decompressor_out.load());
    bson_append_document_end(&entry, &decompressor);
    bson_append_document_end(&compression, &entry);
  }
  bson_append_document_end(network, &compression);
}

}  // namespace tigerdoc::wire
