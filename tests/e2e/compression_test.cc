// Wire compression end to end: libmongoc negotiates each compressor in
// hello (?compressors=...), sends OP_COMPRESSED, and reads compressed
// replies; serverStatus's network.compression counters show the bytes went
// through that compressor both ways.

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::Integer;
using testutil::String;

class CompressionTest : public E2eTest {
 protected:
  // {compressor: {bytesIn, bytesOut}, decompressor: {...}} of `name`.
  int64_t Counter(const std::string& name, const std::string& which) {
    BsonDoc status = RunAdmin("{\"serverStatus\": 1}");
    return Integer(status, "network.compression." + name + "." + which).value_or(-1);
  }
};

TEST_F(CompressionTest, HelloAnswersTheSharedCompressorsInServerOrder) {
  BsonDoc hello = RunAdmin("{\"hello\": 1, \"compression\": [\"zlib\", \"lz4\", \"snappy\", \"zstd\"]}");
  ASSERT_OK_REPLY(hello);
  EXPECT_EQ(testutil::CanonicalJson(testutil::SubDoc(hello, "compression")),
            testutil::CanonicalJson("{\"0\": \"snappy\", \"1\": \"zstd\", \"2\": \"zlib\"}"));
  // None shared, or none offered: no field, as mongod (serverNegotiate).
  BsonDoc none = RunAdmin("{\"hello\": 1, \"compression\": [\"lz4\"]}");
  ASSERT_OK_REPLY(none);
  EXPECT_FALSE(testutil::Has(none, "compression"));
  BsonDoc empty = RunAdmin("{\"hello\": 1, \"compression\": []}");
  ASSERT_OK_REPLY(empty);
  EXPECT_FALSE(testutil::Has(empty, "compression"));
  EXPECT_FALSE(testutil::Has(RunAdmin("{\"hello\": 1}"), "compression"));
  EXPECT_ERROR_REPLY(RunAdmin("{\"hello\": 1, \"compression\": \"zlib\"}"), 14, "TypeMismatch");
}

TEST_F(CompressionTest, EachCompressorCarriesRequestsAndReplies) {
  for (const char* name : {"snappy", "zlib", "zstd"}) {
    SCOPED_TRACE(name);
    const int64_t in_before = Counter(name, "decompressor.bytesIn");
    const int64_t out_before = Counter(name, "compressor.bytesOut");
    const int64_t raw_out_before = Counter(name, "compressor.bytesIn");
    MongoClient compressed(server_->uri() + "&compressors=" + name);
    const std::string coll = std::string("c_") + name;
    // Repetitive documents: what compression is for.
    std::vector<BsonDoc> docs;
    for (int i = 0; i < 200; ++i) {
      docs.push_back(BsonDoc::FromJson("{\"i\": " + std::to_string(i) +
                                       ", \"text\": \"" + std::string(500, 'a' + i % 3) + "\"}"));
    }
    BsonDoc inserted = compressed.InsertMany(db_, coll, docs);
    ASSERT_EQ(Integer(inserted, "insertedCount"), 200) << testutil::Json(inserted);
    BsonDoc found = compressed.RunCommand(db_, "{\"find\": \"" + coll + "\", \"sort\": {\"i\": 1}, \"batchSize\": 200}");
    ASSERT_OK_REPLY(found);
    EXPECT_EQ(testutil::ArrayLength(found, "cursor.firstBatch"), 200u);
    EXPECT_EQ(String(found, "cursor.firstBatch.199.text"), std::string(500, 'a' + 199 % 3));

    const int64_t received = Counter(name, "decompressor.bytesIn") - in_before;
    const int64_t sent = Counter(name, "compressor.bytesOut") - out_before;
    const int64_t sent_raw = Counter(name, "compressor.bytesIn") - raw_out_before;
    EXPECT_GT(received, 0);
    EXPECT_GT(sent, 0);
    // 200 x 500 bytes went out in the find reply; far fewer on the wire.
    EXPECT_GT(sent_raw, 100000);
    EXPECT_LT(sent, sent_raw / 5);
  }
}

TEST_F(CompressionTest, CompressedAndPlainClientsShareTheServer) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  const char* kChoices[] = {"", "&compressors=snappy", "&compressors=zlib", "&compressors=zstd"};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      MongoClient client(server_->uri() + kChoices[t % 4]);
      for (int i = 0; i < 25; ++i) {
        BsonDoc reply = client.RunCommand(
            db_, "{\"insert\": \"shared\", \"documents\": [{\"t\": " + std::to_string(t) + "}]}");
        if (!testutil::IsOk(reply)) failures++;
        BsonDoc count = client.RunCommand(db_, "{\"count\": \"shared\", \"query\": {\"t\": " +
                                                   std::to_string(t) + "}}");
        if (Integer(count, "n") != i + 1) failures++;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace tigerdoc::e2e
