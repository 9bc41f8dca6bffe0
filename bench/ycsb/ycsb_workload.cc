#include "bench/ycsb/ycsb_workload.h"

#include <cmath>

namespace tigerdoc::bench::ycsb {
namespace {

constexpr double kZipfianConstant = 0.99;
// YCSB's ScrambledZipfianGenerator draws from this many items and its zeta
// (sum of 1/i^0.99 for i = 1..1e10), precomputed there and here because
// summing 1e10 terms takes minutes.
constexpr int64_t kZipfianItems = 10000000000LL;
constexpr double kZetan = 26.46902820178302;

}  // namespace

int64_t FnvHash64(int64_t value) {
  uint64_t v = static_cast<uint64_t>(value);
  uint64_t hash = 0xCBF29CE484222325ULL;
  for (int i = 0; i < 8; ++i) {
    hash ^= v & 0xff;
    v >>= 8;
    hash *= 1099511628211ULL;
  }
  int64_t h = static_cast<int64_t>(hash);
  return h < 0 ? (h == INT64_MIN ? INT64_MAX : -h) : h;
}

std::string KeyOf(int64_t record) { return "user" + std::to_string(FnvHash64(record)); }

const std::string& FieldName(int field) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (int i = 0; i < kFieldCount; ++i) v.push_back("field" + std::to_string(i));
    return v;
  }();
  return names[static_cast<size_t>(field)];
}

std::string RandomFieldValue(std::mt19937_64& rng) {
  std::string s(kFieldLength, ' ');
  uint64_t bits = 0;
  for (int i = 0; i < kFieldLength; ++i) {
    if (i % 8 == 0) bits = rng();
    s[static_cast<size_t>(i)] = static_cast<char>(' ' + 1 + (bits & 0xff) % 94);  // '!'..'~'
    bits >>= 8;
  }
  return s;
}

ScrambledZipfian::ScrambledZipfian(int64_t items) : items_(items < 1 ? 1 : items) {}

int64_t ScrambledZipfian::Next(std::mt19937_64& rng) {
  // Gray et al., "Quickly generating billion-record synthetic databases",
  // as YCSB's ZipfianGenerator.nextLong does it.
  static const double zeta2 = 1.0 + std::pow(0.5, kZipfianConstant);
  static const double alpha = 1.0 / (1.0 - kZipfianConstant);
  static const double eta = (1.0 - std::pow(2.0 / static_cast<double>(kZipfianItems), 1.0 - kZipfianConstant)) /
                            (1.0 - zeta2 / kZetan);
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  const double uz = u * kZetan;
  int64_t rank;
  if (uz < 1.0) {
    rank = 0;
  } else if (uz < zeta2) {
    rank = 1;
  } else {
    rank = static_cast<int64_t>(static_cast<double>(kZipfianItems) *
                                std::pow(eta * u - eta + 1.0, alpha));
  }
  return FnvHash64(rank) % items_;
}

OpKind Workload::Pick(std::mt19937_64& rng) const {
  double x = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  if ((x -= read) < 0) return OpKind::kRead;
  if ((x -= update) < 0) return OpKind::kUpdate;
  if ((x -= scan) < 0) return OpKind::kScan;
  return OpKind::kInsert;
}

bool WorkloadByName(const std::string& name, Workload* out) {
  if (name == "load") *out = Workload{"load", 0, 0, 1, 0};
  else if (name == "a") *out = Workload{"A", 0.5, 0.5, 0, 0};
  else if (name == "b") *out = Workload{"B", 0.95, 0.05, 0, 0};
  else if (name == "c") *out = Workload{"C", 1, 0, 0, 0};
  else if (name == "e") *out = Workload{"E", 0, 0, 0.05, 0.95};
  else return false;
  return true;
}

}  // namespace tigerdoc::bench::ycsb
