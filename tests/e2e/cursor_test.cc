// Cursors: paging a 10,000-document result with getMore (firstBatch of 101
// by default), killCursors, and CursorNotFound for ids the server does not
// know.
#include <set>

#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::DocArray;
using testutil::Integer;
using testutil::Json;
using testutil::String;

constexpr int kDocs = 10000;

class CursorTest : public E2eTest {
 protected:
  void InsertMany(int n) {
    std::vector<BsonDoc> docs;
    docs.reserve(n);
    const std::string pad(100, 'x');
    for (int i = 0; i < n; ++i) {
      BsonDoc d;
      BSON_APPEND_INT32(d.mutable_get(), "_id", i);
      BSON_APPEND_INT32(d.mutable_get(), "k", i % 7);
      BSON_APPEND_UTF8(d.mutable_get(), "pad", pad.c_str());
      docs.push_back(std::move(d));
    }
    BsonDoc r = client_->InsertMany(db_, "c", docs);
    ASSERT_EQ(Integer(r, "insertedCount"), n) << Json(r);
  }

  BsonDoc KillCursors(const std::string& coll, int64_t id) {
    BsonDoc cmd;
    BSON_APPEND_UTF8(cmd.mutable_get(), "killCursors", coll.c_str());
    bson_t ids;
    BSON_APPEND_ARRAY_BEGIN(cmd.mutable_get(), "cursors", &ids);
    BSON_APPEND_INT64(&ids, "0", id);
    bson_append_array_end(cmd.mutable_get(), &ids);
    return Run(cmd);
  }

  static std::vector<int64_t> Int64Array(const BsonDoc& doc, std::string_view path) {
    std::vector<int64_t> out;
    BsonDoc arr = testutil::SubDoc(doc, path);
    bson_iter_t it;
    if (!bson_iter_init(&it, arr.get())) return out;
    while (bson_iter_next(&it)) out.push_back(bson_iter_as_int64(&it));
    return out;
  }
};

TEST_F(CursorTest, PagesTenThousandDocumentsWithDefaultBatches) {
  InsertMany(kDocs);
  BsonDoc r = Run(R"({"find": "c"})");
  ASSERT_OK_REPLY(r);
  std::set<int64_t> seen;
  auto first = Ids(r);
  EXPECT_EQ(first.size(), 101u);
  seen.insert(first.begin(), first.end());
  int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0) << Json(r);
  const int64_t cursor_id = id;
  int get_mores = 0;
  while (id != 0 && get_mores < 1000) {
    r = GetMore(id, "c");
    ASSERT_OK_REPLY(r);
    auto batch = Ids(r, "cursor.nextBatch");
    for (auto v : batch) EXPECT_TRUE(seen.insert(v).second) << "duplicate _id " << v;
    int64_t next = Integer(r, "cursor.id").value_or(-1);
    ASSERT_TRUE(next == 0 || next == id) << Json(r);
    id = next;
    ++get_mores;
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>(kDocs));
  EXPECT_EQ(*seen.begin(), 0);
  EXPECT_EQ(*seen.rbegin(), kDocs - 1);
  // An exhausted cursor is gone.
  EXPECT_ERROR_REPLY(GetMore(cursor_id, "c"), 43, "CursorNotFound");
}

TEST_F(CursorTest, SortedPagingKeepsOrderAcrossGetMores) {
  InsertMany(kDocs);
  BsonDoc r = Run(R"({"find": "c", "sort": {"_id": -1}, "batchSize": 1000})");
  ASSERT_OK_REPLY(r);
  std::vector<int64_t> all = Ids(r);
  int64_t id = Integer(r, "cursor.id").value_or(0);
  while (id != 0) {
    r = GetMore(id, "c", 1000);
    ASSERT_OK_REPLY(r);
    auto batch = Ids(r, "cursor.nextBatch");
    ASSERT_LE(batch.size(), 1000u);
    all.insert(all.end(), batch.begin(), batch.end());
    id = Integer(r, "cursor.id").value_or(0);
  }
  ASSERT_EQ(all.size(), static_cast<size_t>(kDocs));
  for (int i = 0; i < kDocs; ++i) ASSERT_EQ(all[i], kDocs - 1 - i) << "at position " << i;
}

TEST_F(CursorTest, FilteredPagingReturnsExactlyTheMatches) {
  InsertMany(kDocs);
  BsonDoc r = Run(R"({"find": "c", "filter": {"k": 3}, "batchSize": 50})");
  ASSERT_OK_REPLY(r);
  std::set<int64_t> seen;
  for (auto v : Ids(r)) seen.insert(v);
  int64_t id = Integer(r, "cursor.id").value_or(0);
  while (id != 0) {
    r = GetMore(id, "c", 50);
    ASSERT_OK_REPLY(r);
    for (auto v : Ids(r, "cursor.nextBatch")) {
      EXPECT_EQ(v % 7, 3);
      seen.insert(v);
    }
    id = Integer(r, "cursor.id").value_or(0);
  }
  EXPECT_EQ(seen.size(), static_cast<size_t>((kDocs - 3 + 6) / 7));
}

TEST_F(CursorTest, KillCursorsReportsKilledAndForgetsTheCursor) {
  InsertMany(10);
  BsonDoc r = Run(R"({"find": "c", "batchSize": 2})");
  int64_t id = Integer(r, "cursor.id").value_or(0);
  ASSERT_NE(id, 0) << Json(r);

  BsonDoc k = KillCursors("c", id);
  ASSERT_OK_REPLY(k);
  EXPECT_EQ(Int64Array(k, "cursorsKilled"), (std::vector<int64_t>{id})) << Json(k);
  EXPECT_EQ(Int64Array(k, "cursorsNotFound"), (std::vector<int64_t>{})) << Json(k);
  EXPECT_EQ(Int64Array(k, "cursorsAlive"), (std::vector<int64_t>{})) << Json(k);
  EXPECT_EQ(Int64Array(k, "cursorsUnknown"), (std::vector<int64_t>{})) << Json(k);

  BsonDoc g = GetMore(id, "c");
  EXPECT_ERROR_REPLY(g, 43, "CursorNotFound");
  EXPECT_EQ(String(g, "errmsg"), "cursor id " + std::to_string(id) + " not found") << Json(g);

  // Killing it again: not found.
  k = KillCursors("c", id);
  ASSERT_OK_REPLY(k);
  EXPECT_EQ(Int64Array(k, "cursorsNotFound"), (std::vector<int64_t>{id})) << Json(k);
  EXPECT_EQ(Int64Array(k, "cursorsKilled"), (std::vector<int64_t>{})) << Json(k);
}

TEST_F(CursorTest, GetMoreOnUnknownIdIsCursorNotFound) {
  InsertMany(3);
  BsonDoc g = GetMore(123456789, "c");
  EXPECT_ERROR_REPLY(g, 43, "CursorNotFound");
  EXPECT_EQ(String(g, "errmsg"), "cursor id 123456789 not found") << Json(g);
  // The connection is still usable.
  EXPECT_OK_REPLY(Run(R"({"ping": 1})"));
}

TEST_F(CursorTest, OpenCursorsAreIndependent) {
  InsertMany(20);
  BsonDoc a = Run(R"({"find": "c", "sort": {"_id": 1}, "batchSize": 5})");
  BsonDoc b = Run(R"({"find": "c", "sort": {"_id": -1}, "batchSize": 5})");
  int64_t ida = Integer(a, "cursor.id").value_or(0);
  int64_t idb = Integer(b, "cursor.id").value_or(0);
  ASSERT_NE(ida, 0);
  ASSERT_NE(idb, 0);
  EXPECT_NE(ida, idb);
  EXPECT_EQ(Ids(GetMore(ida, "c", 5), "cursor.nextBatch"), (std::vector<int64_t>{5, 6, 7, 8, 9}));
  EXPECT_EQ(Ids(GetMore(idb, "c", 5), "cursor.nextBatch"),
            (std::vector<int64_t>{14, 13, 12, 11, 10}));
  EXPECT_EQ(Ids(GetMore(ida, "c", 5), "cursor.nextBatch"),
            (std::vector<int64_t>{10, 11, 12, 13, 14}));
}

}  // namespace
}  // namespace tigerdoc::e2e
