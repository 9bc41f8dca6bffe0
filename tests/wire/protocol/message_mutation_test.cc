// Feeds 20,000 random mutations of valid messages to ParseRequest. The
// property is "no crash, no over-read, and anything accepted is
// well-formed"; run under -DTIGERDOC_SANITIZE=address,undefined to make
// over-reads fatal. Deterministic (fixed seed) so failures reproduce.

#include <gtest/gtest.h>

#include <climits>
#include <random>
#include <string>
#include <vector>

#include "tests/wire/protocol/golden_messages.h"
#include "wire/protocol/crc32c.h"
#include "wire/protocol/message.h"
#include "wire/protocol/op_query.h"

namespace tigerdoc::wire {
namespace {

std::vector<uint8_t> Bytes(const std::string& s) { return {s.begin(), s.end()}; }

std::vector<std::vector<uint8_t>> Seeds() {
  std::vector<std::vector<uint8_t>> seeds = {golden::kOpMsgPing, golden::kOpMsgInsert,
                                             golden::kOpMsgPingChecksum, golden::kOpQueryIsMaster};
  const bson::BsonDoc query = bson::BsonDoc::FromJson(R"({"q": {"a": [1, 2, {"b": "x"}]}})");
  const bson::BsonDoc update = bson::BsonDoc::FromJson(R"({"u": {"$set": {"c": 1.5}}})");
  const bson::BsonDoc date = bson::BsonDoc::FromJson(R"({"d": {"$date": 0}})");
  std::vector<DocumentSequence> seqs(2);
  seqs[0].identifier = "updates";
  seqs[0].documents = {query.bytes(), update.bytes()};
  seqs[1].identifier = "other";
  seqs[1].documents = {date.bytes()};
  seeds.push_back(Bytes(SerializeOpMsg(
      21, 0, kChecksumPresent | kExhaustAllowed,
      bson::BsonDoc::FromJson(R"({"update": "c", "$db": "db", "ordered": true})"), seqs)));
  OpQuery q;
  q.full_collection_name = "admin.$cmd";
  q.query = bson::BsonDoc::FromJson(
      R"({"$query": {"hello": 1, "client": {"driver": "x"}}, "$readPreference": {"mode": "p"}})");
  q.return_fields_selector = bson::BsonDoc::FromJson(R"({"a": 1})");
  seeds.push_back(Bytes(SerializeOpQuery(22, q)));
  return seeds;
}

class Mutator {
 public:
  explicit Mutator(uint32_t seed) : rng_(seed) {}

  std::vector<uint8_t> Mutate(std::vector<uint8_t> m) {
    const int rounds = 1 + Below(3);
    for (int i = 0; i < rounds; ++i) MutateOnce(&m);
    // Usually keep the framing consistent so the mutation reaches the
    // section and document parsers instead of stopping at the header.
    if (m.size() >= 4 && Below(4) != 0) StoreInt32(m.data(), static_cast<int32_t>(m.size()));
    // Likewise re-seal a checksum half the time so corrupted sections are parsed.
    if (m.size() >= 24 && (LoadUint32(m.data() + 16) & kChecksumPresent) && Below(2) == 0) {
      StoreInt32(m.data() + m.size() - 4, static_cast<int32_t>(Crc32c(m.data(), m.size() - 4)));
    }
    return m;
  }

 private:
  int Below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  size_t Index(size_t size) {
    return size == 0 ? 0 : static_cast<size_t>(Below(static_cast<int>(size)));
  }

  void MutateOnce(std::vector<uint8_t>* m) {
    static const int32_t kInteresting[] = {
        0,          1,       -1,       3,        4,
        5,          16,      127,      128,      255,
        0x7FFFFFFF, INT_MIN, 48000000, 48000001, 16 * 1024 * 1024 + 16385};
    switch (Below(7)) {
      case 0:  // flip a bit
        if (!m->empty()) (*m)[Index(m->size())] ^= static_cast<uint8_t>(1 << Below(8));
        break;
      case 1:  // random byte
        if (!m->empty()) (*m)[Index(m->size())] = static_cast<uint8_t>(Below(256));
        break;
      case 2: {  // interesting int32, including ones relative to the size
        if (m->size() < 4) break;
        const size_t at = Index(m->size() - 3);
        int32_t v = kInteresting[Below(sizeof(kInteresting) / sizeof(kInteresting[0]))];
        if (Below(3) == 0) v = static_cast<int32_t>(m->size() - at) + Below(5) - 2;
        StoreInt32(m->data() + at, v);
        break;
      }
      case 3:  // truncate
        m->resize(Index(m->size() + 1));
        break;
      case 4: {  // insert random bytes
        const size_t at = Index(m->size() + 1);
        const int n = 1 + Below(8);
        for (int i = 0; i < n; ++i) m->insert(m->begin() + at, static_cast<uint8_t>(Below(256)));
        break;
      }
      case 5: {  // duplicate a slice
        if (m->empty()) break;
        const size_t from = Index(m->size());
        const size_t n = 1 + Index(std::min<size_t>(32, m->size() - from));
        std::vector<uint8_t> slice(m->begin() + from, m->begin() + from + n);
        m->insert(m->begin() + Index(m->size() + 1), slice.begin(), slice.end());
        break;
      }
      default: {  // erase a slice
        if (m->empty()) break;
        const size_t from = Index(m->size());
        const size_t n = 1 + Index(std::min<size_t>(16, m->size() - from));
        m->erase(m->begin() + from, m->begin() + from + n);
        break;
      }
    }
  }

  std::mt19937 rng_;
};

bool IsValidBson(const bson::BsonDoc& doc) {
  return bson_validate(doc.get(), BSON_VALIDATE_NONE, nullptr);
}

bool IsValidBson(std::string_view doc) {
  bson_t view;
  return bson_init_static(&view, reinterpret_cast<const uint8_t*>(doc.data()), doc.size()) &&
         bson_validate(&view, BSON_VALIDATE_NONE, nullptr);
}

TEST(MessageMutationTest, TwentyThousandMutationsNeverCrashAndAcceptOnlyWellFormed) {
  const auto seeds = Seeds();
  for (const auto& seed : seeds) {
    auto r = ParseRequest(seed.data(), seed.size());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  Mutator mutator(0x7167E4D0u);
  int accepted = 0, fatal = 0, answerable = 0;
  for (int i = 0; i < 20000; ++i) {
    // An exactly-sized heap copy, so ASan flags any read past the end.
    std::vector<uint8_t> m = mutator.Mutate(seeds[i % seeds.size()]);
    auto r = ParseRequest(m.data(), m.size());
    if (!r.ok()) {
      (IsConnectionFatal(r.status()) ? fatal : answerable)++;
      continue;
    }
    ++accepted;
    const CommandRequest& req = r.value().request;
    EXPECT_FALSE(req.db.empty());
    EXPECT_TRUE(IsValidBson(req.body));
    for (const auto& seq : req.sequences) {
      for (const auto& doc : seq.documents) EXPECT_TRUE(IsValidBson(doc));
    }
    if (r.value().header.op_code == kOpMsg) {
      // What was accepted re-encodes to a message that parses to the same body.
      std::string again = SerializeOpMsg(1, 0, 0, req.body, req.sequences);
      auto r2 = ParseRequest(reinterpret_cast<const uint8_t*>(again.data()), again.size());
      ASSERT_TRUE(r2.ok()) << r2.status().ToString();
      EXPECT_EQ(r2.value().request.body.bytes(), req.body.bytes());
      EXPECT_EQ(r2.value().request.sequences.size(), req.sequences.size());
    }
  }
  // The mutator must exercise all three outcomes, or the test proves little.
  EXPECT_GT(accepted, 200);
  EXPECT_GT(fatal, 200);
  EXPECT_GT(answerable, 200);
  std::printf("accepted %d, connection-fatal %d, answerable %d\n", accepted, fatal, answerable);
}

}  // namespace
}  // namespace tigerdoc::wire
