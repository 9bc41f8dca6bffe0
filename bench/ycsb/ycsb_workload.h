#pragma once
// YCSB's core workloads as the Yahoo! Cloud Serving Benchmark defines them
// (github.com/brianfrankcooper/YCSB, core/.../CoreWorkload.java), rewritten
// for tigerdoc_ycsb: record keys, field values, the scrambled zipfian
// request distribution and the operation mix of workloads A, B, C and E.
//
//  - keys are "user" + fnvhash64(record number) in decimal (YCSB's
//    insertorder=hashed), so consecutive records land far apart;
//  - a record has kFieldCount fields "field0".."field9" of kFieldLength
//    random printable bytes;
//  - requests pick a record with a scrambled zipfian distribution
//    (constant 0.99, hashed over the key space), so some records are hot
//    but the hot ones are spread over the key space;
//  - a scan starts at a chosen key and reads a uniformly random 1..100
//    records in key order.
//
// Thread-safety: the generators are per thread; a Workload is immutable.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tigerdoc::bench::ycsb {

inline constexpr int kFieldCount = 10;
inline constexpr int kFieldLength = 100;
inline constexpr int kMaxScanLength = 100;

// YCSB's 64-bit FNV-1a over the 8 bytes of `value`, made non-negative.
int64_t FnvHash64(int64_t value);

// "user" + FnvHash64(record) in decimal.
std::string KeyOf(int64_t record);

// "field0".."field9".
const std::string& FieldName(int field);

// kFieldLength random printable bytes.
std::string RandomFieldValue(std::mt19937_64& rng);

// YCSB's ScrambledZipfianGenerator: a zipfian draw (theta 0.99) over a very
// large item space, hashed into [0, items). Cheap to build (the zeta
// constant of the large space is precomputed, as in YCSB).
class ScrambledZipfian {
 public:
  explicit ScrambledZipfian(int64_t items);
  int64_t Next(std::mt19937_64& rng);

 private:
  int64_t items_;
};

enum class OpKind { kRead, kUpdate, kInsert, kScan };

struct Workload {
  std::string name;  // "A", "B", "C", "E", "load"
  double read = 0, update = 0, insert = 0, scan = 0;  // proportions, sum 1
  // Picks the next operation.
  OpKind Pick(std::mt19937_64& rng) const;
};

// The four measured workloads and the load phase, by lowercase name
// ("load", "a", "b", "c", "e"); returns false for an unknown name.
bool WorkloadByName(const std::string& name, Workload* out);

}  // namespace tigerdoc::bench::ycsb
