// Sorter: in-memory order and stability, the memory limit (292), spilling
// runs to disk and merging them, and top-k with a bounded heap.

#include "engine/query/sorter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace tigerdoc::query {
namespace {

// A row whose document records its key and insertion number.
bson::BsonDoc Doc(int key, int seq, size_t pad = 0) {
  bson::BsonDoc d;
  BSON_APPEND_INT32(d.mutable_get(), "k", key);
  BSON_APPEND_INT32(d.mutable_get(), "seq", seq);
  if (pad > 0) BSON_APPEND_UTF8(d.mutable_get(), "pad", std::string(pad, 'x').c_str());
  return d;
}

// Big-endian bytes sort like the integers (for non-negative keys).
std::string Key(int key) {
  std::string k(4, '\0');
  for (int i = 0; i < 4; ++i) k[i] = static_cast<char>((key >> (8 * (3 - i))) & 0xff);
  return k;
}

struct Out {
  int key;
  int seq;
};

std::vector<Out> Drain(Sorter& sorter) {
  std::vector<Out> out;
  bson::BsonDoc doc;
  while (true) {
    auto next = sorter.Next(&doc);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !next.value()) break;
    bson_iter_t it;
    EXPECT_TRUE(bson_iter_init_find(&it, doc.get(), "k"));
    int key = bson_iter_int32(&it);
    EXPECT_TRUE(bson_iter_init_find(&it, doc.get(), "seq"));
    out.push_back(Out{key, bson_iter_int32(&it)});
  }
  return out;
}

// Feeds `keys` in order (seq = position) and returns what comes out.
std::vector<Out> SortAll(SorterOptions options, const std::vector<int>& keys, size_t pad,
                         SorterStats* stats = nullptr) {
  Sorter sorter(std::move(options));
  for (size_t i = 0; i < keys.size(); ++i) {
    Status st = sorter.Add(Key(keys[i]), Doc(keys[i], static_cast<int>(i), pad));
    EXPECT_TRUE(st.ok()) << st.ToString();
    if (!st.ok()) return {};
  }
  EXPECT_TRUE(sorter.Done().ok());
  std::vector<Out> out = Drain(sorter);
  EXPECT_TRUE(sorter.AtEnd());
  if (stats) *stats = sorter.stats();
  return out;
}

// The expected order: by key, ties by insertion.
std::vector<Out> Expected(const std::vector<int>& keys, size_t limit = 0) {
  std::vector<Out> rows;
  for (size_t i = 0; i < keys.size(); ++i) rows.push_back(Out{keys[i], static_cast<int>(i)});
  std::stable_sort(rows.begin(), rows.end(), [](const Out& a, const Out& b) { return a.key < b.key; });
  if (limit > 0 && rows.size() > limit) rows.resize(limit);
  return rows;
}

void ExpectSame(const std::vector<Out>& got, const std::vector<Out>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].key, want[i].key) << "at " << i;
    ASSERT_EQ(got[i].seq, want[i].seq) << "at " << i << " (ties must keep insertion order)";
  }
}

std::vector<int> RandomKeys(size_t n, int distinct, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, distinct - 1);
  std::vector<int> keys(n);
  for (int& k : keys) k = dist(rng);
  return keys;
}

TEST(SorterTest, SortsInMemoryKeepingTiesInInsertionOrder) {
  std::vector<int> keys = RandomKeys(5000, 50, 1);
  SorterStats stats;
  ExpectSame(SortAll(SorterOptions{}, keys, 0, &stats), Expected(keys));
  EXPECT_EQ(stats.spills, 0);
}

TEST(SorterTest, OverTheLimitWithoutDiskUseFailsWith292) {
  SorterOptions options;
  options.max_memory_bytes = 10000;
  Sorter sorter(options);
  Status st;
  for (int i = 0; i < 1000 && st.ok(); ++i) st = sorter.Add(Key(i), Doc(i, i, 100));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code_number(), 292);
  EXPECT_EQ(st.reason(),
            "Sort exceeded memory limit of 10000 bytes, but did not opt in to external sorting.");
}

TEST(SorterTest, SpillsRunsToDiskAndMergesThemInOrder) {
  SorterOptions options;
  options.max_memory_bytes = 16 * 1024;
  options.allow_disk_use = true;
  std::vector<int> keys = RandomKeys(20000, 300, 2);
  SorterStats stats;
  ExpectSame(SortAll(options, keys, 40, &stats), Expected(keys));
  EXPECT_GT(stats.spills, 10);
  EXPECT_GT(stats.spilled_bytes, 20000 * 40);
  // Memory stays near the budget however much is sorted.
  EXPECT_LT(stats.peak_memory_bytes, 2 * options.max_memory_bytes);
}

TEST(SorterTest, TopKHoldsOnlyLimitRows) {
  SorterOptions options;
  options.limit = 10;
  options.max_memory_bytes = 4096;  // far below 100,000 rows, far above 10
  std::vector<int> keys = RandomKeys(100000, 1000000, 3);
  SorterStats stats;
  ExpectSame(SortAll(options, keys, 0, &stats), Expected(keys, 10));
  EXPECT_EQ(stats.spills, 0);
  EXPECT_LE(stats.peak_memory_bytes, 4096);
}

TEST(SorterTest, TopKWithTiesKeepsTheEarliest) {
  SorterOptions options;
  options.limit = 7;
  std::vector<int> keys = RandomKeys(1000, 3, 4);
  ExpectSame(SortAll(options, keys, 0), Expected(keys, 7));
}

TEST(SorterTest, TopKLargerThanMemorySpillsAndStaysCorrect) {
  SorterOptions options;
  options.limit = 3000;
  options.max_memory_bytes = 32 * 1024;
  options.allow_disk_use = true;
  std::vector<int> keys = RandomKeys(30000, 5000, 5);
  SorterStats stats;
  ExpectSame(SortAll(options, keys, 30, &stats), Expected(keys, 3000));
  EXPECT_GT(stats.spills, 0);
}

TEST(SorterTest, EmptyInputEndsAtOnce) {
  Sorter sorter(SorterOptions{});
  ASSERT_TRUE(sorter.Done().ok());
  EXPECT_TRUE(sorter.AtEnd());
  bson::BsonDoc doc;
  auto next = sorter.Next(&doc);
  ASSERT_TRUE(next.ok());
  EXPECT_FALSE(next.value());
}

}  // namespace
}  // namespace tigerdoc::query
