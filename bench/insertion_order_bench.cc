// tigerdoc_insertion_order_bench: what an insertion-order guarantee would
// cost tigerdoc's storage (issue #19, "Unsorted scans do not return
// insertion order"). Records are keyed by (shard key, _id), so a natural
// scan returns them in key order, not insertion order. The cheapest way to
// add insertion order to N hash shards is a per-shard sequence table
// (u64 sequence -> record key) written in each insert's transaction, and a
// natural scan that walks it and fetches each record. This program
// measures, in one run on one WiredTiger connection (journal on, as the
// server):
//
//   insert:  one transaction per document (the server's write unit), into
//            the record table alone, then into the record table plus the
//            sequence table;
//   scan:    every document in key order (a cursor over the record table),
//            then in insertion order (a cursor over the sequence table and
//            a point read per record).
//
//   tigerdoc_insertion_order_bench [documents=200000] [dbpath=/tmp/...]
//
// Prints documents/s of each and the ratios.

#include <bson/bson.h>

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/keystring/key_string.h"
#include "engine/storage/storage_engine.h"

namespace {

using tigerdoc::Status;
using tigerdoc::storage::Session;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

void Check(const Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, status.ToString().c_str());
    std::exit(1);
  }
}

// A document of about 200 bytes with a random ObjectId-like _id, as the
// load generator's; its record key is keystring(_id) ++ keystring(_id)
// (a collection sharded by _id).
struct Record {
  std::string key;
  std::string value;
};

Record MakeRecord(std::mt19937_64& rng, int64_t i) {
  bson_t doc = BSON_INITIALIZER;
  bson_oid_t oid;
  uint8_t bytes[12];
  for (int b = 0; b < 12; ++b) bytes[b] = static_cast<uint8_t>(rng());
  bson_oid_init_from_data(&oid, bytes);
  BSON_APPEND_OID(&doc, "_id", &oid);
  BSON_APPEND_INT64(&doc, "i", i);
  BSON_APPEND_UTF8(&doc, "name", "a customer name of some length");
  BSON_APPEND_UTF8(&doc, "city", "a city somewhere on the map");
  BSON_APPEND_DOUBLE(&doc, "amount", static_cast<double>(rng() % 100000) / 100);
  std::string padding(96, 'x');
  BSON_APPEND_UTF8(&doc, "notes", padding.c_str());
  bson_iter_t it;
  bson_iter_init_find(&it, &doc, "_id");
  const std::string id_key = tigerdoc::keystring::Encode(&it);
  Record r{id_key + id_key,
           std::string(reinterpret_cast<const char*>(bson_get_data(&doc)), doc.len)};
  bson_destroy(&doc);
  return r;
}

std::string BigEndian(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i, v >>= 8) out[i] = static_cast<char>(v & 0xff);
  return out;
}

double InsertAll(Session& session, const std::vector<Record>& records, const std::string& table,
                 const std::string* sequence_table) {
  const auto start = Clock::now();
  uint64_t sequence = 0;
  for (const Record& r : records) {
    Check(session.Begin(), "begin");
    Check(session.Insert(table, r.key, r.value), "insert");
    if (sequence_table) Check(session.Insert(*sequence_table, BigEndian(++sequence), r.key), "seq");
    Check(session.Commit(), "commit");
  }
  return records.size() / Seconds(start);
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 200000;
  const std::string dbpath = argc > 2 ? argv[2] : "/tmp/tigerdoc_insertion_order_bench";
  std::filesystem::remove_all(dbpath);
  tigerdoc::storage::StorageOptions options;
  options.dbpath = dbpath;
  options.cache_size_mb = 256;
  auto engine = tigerdoc::storage::StorageEngine::Open(options);
  if (!engine.ok()) {
    std::fprintf(stderr, "open: %s\n", engine.status().ToString().c_str());
    return 1;
  }
  auto session_holder = std::make_unique<Session>(engine.value()->NewSession());
  Session& session = *session_holder;
  Check(session.CreateTable("plain-s0"), "create");
  Check(session.CreateTable("ordered-s0"), "create");
  Check(session.CreateTable("ordered-seq-s0"), "create");

  std::mt19937_64 rng(42);
  std::vector<Record> records;
  records.reserve(n);
  for (int64_t i = 0; i < n; ++i) records.push_back(MakeRecord(rng, i));

  const std::string seq_table = "ordered-seq-s0";
  const double plain_insert = InsertAll(session, records, "plain-s0", nullptr);
  const double ordered_insert = InsertAll(session, records, "ordered-s0", &seq_table);

  // Key-order scan of the record table.
  auto start = Clock::now();
  int64_t seen = 0;
  {
    auto cursor = session.Scan("plain-s0", "", "");
    Check(cursor.status(), "scan");
    Status status;
    while (cursor.value().Next(&status)) ++seen;
    Check(status, "scan");
  }
  const double key_scan = seen / Seconds(start);
  // Insertion-order scan: the sequence table, a point read per record.
  start = Clock::now();
  int64_t fetched = 0;
  {
    auto cursor = session.Scan(seq_table, "", "");
    Check(cursor.status(), "scan");
    Status status;
    while (cursor.value().Next(&status)) {
      auto record = session.Get("ordered-s0", cursor.value().value());
      Check(record.status(), "get");
      if (record.value()) ++fetched;
    }
    Check(status, "scan");
  }
  const double sequence_scan = fetched / Seconds(start);

  std::printf("documents: %" PRId64 " (about %zu bytes each)\n", n, records[0].value.size());
  std::printf("insert, record table only:            %10.0f docs/s\n", plain_insert);
  std::printf("insert, record + sequence table:      %10.0f docs/s  (%.2fx)\n", ordered_insert,
              ordered_insert / plain_insert);
  std::printf("scan, key order (record table):       %10.0f docs/s\n", key_scan);
  std::printf("scan, insertion order (sequence+get): %10.0f docs/s  (%.2fx)\n", sequence_scan,
              sequence_scan / key_scan);
  session_holder.reset();
  engine.value().reset();  // close WiredTiger before its files go
  std::filesystem::remove_all(dbpath);
  return 0;
}
