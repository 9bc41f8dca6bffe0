#include "patterns/common/counts.h"

#include <atomic>
#include <optional>

namespace tigerdoc::patterns {
namespace {

void PutBe64(std::string* out, int64_t v) {
  auto u = static_cast<uint64_t>(v);
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

int64_t GetBe64(std::string_view bytes, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(bytes[at + i]);
  return static_cast<int64_t>(v);
}

}  // namespace

std::string EncodeCounts(const Counts& counts) {
  std::string out;
  PutBe64(&out, counts.count);
  PutBe64(&out, counts.bytes);
  return out;
}

StatusWith<Counts> DecodeCounts(std::string_view bytes) {
  if (bytes.size() < 16) return Status(ErrorCode::kInternalError, "malformed counts row");
  return Counts{GetBe64(bytes, 0), GetBe64(bytes, 8)};
}

int ThreadStripe() {
  static std::atomic<int> next{0};
  thread_local const int stripe = next.fetch_add(1) % kStripes;
  return stripe;
}

Status AddToCountsRow(storage::Session& session, std::string_view table, std::string_view key,
                      const Counts& delta) {
  ASSIGN_OR_RETURN(std::optional<std::string> row, session.Get(table, key));
  Counts counts;
  if (row) {
    ASSIGN_OR_RETURN(counts, DecodeCounts(*row));
  }
  counts += delta;
  return session.Put(table, key, EncodeCounts(counts));
}

}  // namespace tigerdoc::patterns
