// CursorFields writes its reply as bytes (reply_builder.cc); they must be
// the bytes libbson's appends give for the same fields, for empty, single
// and multi-digit-indexed batches, small and heap-sized documents, with
// and without a resume token, every cursor id shape, and stay an ordinary
// document that OkReply can append to.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

using bson::BsonDoc;

// The fields as libbson appends them, one call each.
BsonDoc Reference(std::string_view batch_field, int64_t id, std::string_view ns,
                  const std::vector<BsonDoc>& docs, const bson_t* token) {
  BsonDoc out;
  bson_t cursor, batch;
  bson_append_document_begin(out.mutable_get(), "cursor", -1, &cursor);
  bson_append_array_begin(&cursor, batch_field.data(), static_cast<int>(batch_field.size()), &batch);
  for (size_t i = 0; i < docs.size(); ++i) {
    const std::string key = std::to_string(i);
    bson_append_document(&batch, key.c_str(), -1, docs[i].get());
  }
  bson_append_array_end(&cursor, &batch);
  if (token != nullptr && !bson_empty(token)) BSON_APPEND_DOCUMENT(&cursor, "postBatchResumeToken", token);
  BSON_APPEND_INT64(&cursor, "id", id);
  bson_append_utf8(&cursor, "ns", 2, ns.data(), static_cast<int>(ns.size()));
  bson_append_document_end(out.mutable_get(), &cursor);
  return out;
}

std::vector<BsonDoc> Batch(size_t n, size_t filler) {
  std::vector<BsonDoc> docs;
  for (size_t i = 0; i < n; ++i) {
    BsonDoc doc;
    BSON_APPEND_INT64(doc.mutable_get(), "_id", static_cast<int64_t>(i));
    if (filler > 0) BSON_APPEND_UTF8(doc.mutable_get(), "v", std::string(filler, 'x').c_str());
    docs.push_back(std::move(doc));
  }
  return docs;
}

TEST(CursorFields, SameBytesAsLibbsonAppends) {
  const BsonDoc token = BsonDoc::FromJson(R"({"_data": "8263A1B2C3000000012B022C0100296E5A1004"})");
  const BsonDoc empty_token;
  const std::string long_ns = "db." + std::string(200, 'c');
  for (size_t n : {0, 1, 2, 10, 11, 101}) {
    for (size_t filler : {0, 100, 5000}) {
      for (int64_t id : {int64_t{0}, int64_t{1}, int64_t{-1}, INT64_MAX, INT64_MIN, int64_t{0x0102030405060708}}) {
        for (const bson_t* t : {static_cast<const bson_t*>(nullptr), empty_token.get(), token.get()}) {
          for (std::string_view field : {"firstBatch", "nextBatch"}) {
            for (std::string_view ns : {std::string_view("db.c"), std::string_view(long_ns),
                                        std::string_view("db.$cmd.listCollections")}) {
              SCOPED_TRACE(testing::Message() << n << " docs of " << filler << ", id " << id << ", "
                                              << field << ", " << ns.size() << "-byte ns");
              const std::vector<BsonDoc> docs = Batch(n, filler);
              const BsonDoc written = CursorFields(field, id, ns, docs, t);
              const BsonDoc expected = Reference(field, id, ns, docs, t);
              ASSERT_EQ(written.bytes(), expected.bytes());
              ASSERT_TRUE(bson_validate(written.get(), BSON_VALIDATE_NONE, nullptr));
            }
          }
        }
      }
    }
  }
}

TEST(CursorFields, TheReplyStaysAnOrdinaryDocument) {
  // OkReply appends to it (in place or after growing the buffer); moves and
  // copies keep the bytes.
  for (size_t filler : {0, 60, 100, 4000}) {
    SCOPED_TRACE(filler);
    const std::vector<BsonDoc> docs = Batch(1, filler);
    BsonDoc reply = OkReply(CursorFields("firstBatch", 0, "db.c", docs));
    BsonDoc expected = Reference("firstBatch", 0, "db.c", docs, nullptr);
    BSON_APPEND_DOUBLE(expected.mutable_get(), "ok", 1.0);
    EXPECT_EQ(reply.bytes(), expected.bytes());
    BsonDoc moved(std::move(reply));
    EXPECT_EQ(moved.Copy().bytes(), expected.bytes());
    bson_iter_t it;
    ASSERT_TRUE(bson_iter_init(&it, moved.get()));
    ASSERT_TRUE(bson_iter_find_descendant(&it, "cursor.firstBatch.0._id", &it));
    EXPECT_EQ(bson_iter_int64(&it), 0);
  }
}

}  // namespace
}  // namespace tigerdoc::wire
