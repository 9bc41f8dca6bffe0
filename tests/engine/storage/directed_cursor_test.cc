// DirectedCursor: forward and backward range scans against an in-memory
// WiredTiger, bounds just below, at and above existing keys.

#include "engine/storage/directed_cursor.h"
#include "tests/engine/storage/in_memory_storage.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tigerdoc::storage {
namespace {

class DirectedCursorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = OpenInMemoryStorage();
    ASSERT_NE(engine_, nullptr);
    Session session = engine_->NewSession();
    ASSERT_TRUE(session.CreateTable("t").ok());
    ASSERT_TRUE(session.CreateTable("empty").ok());
    for (const char* key : {"b", "d", "d\x01", "f", "h"}) {
      ASSERT_TRUE(session.Insert("t", key, std::string("v") + key).ok());
    }
  }

  std::vector<std::string> Keys(std::string_view table, std::string_view lower,
                                std::string_view upper, ScanDirection direction) {
    Session session = engine_->NewSession();
    auto cursor = DirectedCursor::Open(session, table, lower, upper, direction);
    EXPECT_TRUE(cursor.ok()) << cursor.status().ToString();
    std::vector<std::string> keys;
    Status status;
    while (cursor.value().Next(&status)) {
      keys.emplace_back(cursor.value().key());
      EXPECT_EQ(cursor.value().value(), "v" + keys.back());
    }
    EXPECT_TRUE(status.ok()) << status.ToString();
    // The end is sticky.
    EXPECT_FALSE(cursor.value().Next(&status));
    return keys;
  }

  std::unique_ptr<StorageEngine> engine_;
};

using KeyList = std::vector<std::string>;
constexpr ScanDirection kForward = ScanDirection::kForward;
constexpr ScanDirection kBackward = ScanDirection::kBackward;

TEST_F(DirectedCursorTest, WholeTableBothWays) {
  EXPECT_EQ(Keys("t", "", "", kForward), (KeyList{"b", "d", "d\x01", "f", "h"}));
  EXPECT_EQ(Keys("t", "", "", kBackward), (KeyList{"h", "f", "d\x01", "d", "b"}));
}

TEST_F(DirectedCursorTest, BackwardUpperBoundIsExclusiveAtBelowAndAbove) {
  EXPECT_EQ(Keys("t", "", "f", kBackward), (KeyList{"d\x01", "d", "b"}));   // at a key
  EXPECT_EQ(Keys("t", "", "e", kBackward), (KeyList{"d\x01", "d", "b"}));   // between keys
  EXPECT_EQ(Keys("t", "", "z", kBackward), (KeyList{"h", "f", "d\x01", "d", "b"}));  // past the end
  EXPECT_EQ(Keys("t", "", "b", kBackward), KeyList{});                      // at the first key
  EXPECT_EQ(Keys("t", "", "a", kBackward), KeyList{});                      // below every key
  EXPECT_EQ(Keys("t", "", "d\x01", kBackward), (KeyList{"d", "b"}));        // an extension of "d"
}

TEST_F(DirectedCursorTest, BackwardLowerBoundIsInclusive) {
  EXPECT_EQ(Keys("t", "d", "", kBackward), (KeyList{"h", "f", "d\x01", "d"}));
  EXPECT_EQ(Keys("t", "c", "g", kBackward), (KeyList{"f", "d\x01", "d"}));
  EXPECT_EQ(Keys("t", "d\x01", "f", kBackward), (KeyList{"d\x01"}));
  EXPECT_EQ(Keys("t", "i", "", kBackward), KeyList{});
}

TEST_F(DirectedCursorTest, ForwardMatchesCursor) {
  EXPECT_EQ(Keys("t", "c", "g", kForward), (KeyList{"d", "d\x01", "f"}));
  EXPECT_EQ(Keys("t", "d\x01", "", kForward), (KeyList{"d\x01", "f", "h"}));
}

TEST_F(DirectedCursorTest, EmptyTable) {
  EXPECT_EQ(Keys("empty", "", "", kBackward), KeyList{});
  EXPECT_EQ(Keys("empty", "a", "z", kBackward), KeyList{});
}

}  // namespace
}  // namespace tigerdoc::storage
