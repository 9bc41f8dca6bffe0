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

// The same bounds as the backward tests above, read forward: the lower
// bound is inclusive, the upper one exclusive, whichever way a scan reads.
TEST_F(DirectedCursorTest, ForwardLowerBoundIsInclusiveAtBelowAndAbove) {
  EXPECT_EQ(Keys("t", "d", "", kForward), (KeyList{"d", "d\x01", "f", "h"}));  // at a key
  EXPECT_EQ(Keys("t", "e", "", kForward), (KeyList{"f", "h"}));                // between keys
  const KeyList all{"b", "d", "d\x01", "f", "h"};
  EXPECT_EQ(Keys("t", "a", "", kForward), all);                                // below every key
  EXPECT_EQ(Keys("t", "b", "", kForward), all);                                // at the first key
  EXPECT_EQ(Keys("t", "h", "", kForward), (KeyList{"h"}));                     // at the last key
  EXPECT_EQ(Keys("t", "i", "", kForward), KeyList{});                          // past the end
}

TEST_F(DirectedCursorTest, ForwardUpperBoundIsExclusive) {
  EXPECT_EQ(Keys("t", "", "f", kForward), (KeyList{"b", "d", "d\x01"}));  // at a key
  EXPECT_EQ(Keys("t", "", "e", kForward), (KeyList{"b", "d", "d\x01"}));  // between keys
  EXPECT_EQ(Keys("t", "", "d\x01", kForward), (KeyList{"b", "d"}));       // an extension of "d"
  EXPECT_EQ(Keys("t", "", "b", kForward), KeyList{});                     // at the first key
  EXPECT_EQ(Keys("t", "", "h", kForward), (KeyList{"b", "d", "d\x01", "f"}));  // at the last key
  EXPECT_EQ(Keys("t", "", "z", kForward), (KeyList{"b", "d", "d\x01", "f", "h"}));
}

TEST_F(DirectedCursorTest, BackwardRangeAtTheLastKey) {
  EXPECT_EQ(Keys("t", "h", "", kBackward), (KeyList{"h"}));
  EXPECT_EQ(Keys("t", "h", "i", kBackward), (KeyList{"h"}));
  EXPECT_EQ(Keys("t", "f", "h", kBackward), (KeyList{"f"}));
}

// lower == upper (at a key and between keys) and lower > upper hold no key
// either way; a one-key range holds that key either way.
TEST_F(DirectedCursorTest, EmptyAndOneKeyRangesBothWays) {
  for (ScanDirection direction : {kForward, kBackward}) {
    EXPECT_EQ(Keys("t", "d", "d", direction), KeyList{});
    EXPECT_EQ(Keys("t", "e", "e", direction), KeyList{});
    EXPECT_EQ(Keys("t", "g", "c", direction), KeyList{});
    EXPECT_EQ(Keys("t", "d", "d\x01", direction), (KeyList{"d"}));
    EXPECT_EQ(Keys("t", "b", "c", direction), (KeyList{"b"}));
    EXPECT_EQ(Keys("t", "g", "z", direction), (KeyList{"h"}));
  }
}

TEST_F(DirectedCursorTest, EmptyTable) {
  EXPECT_EQ(Keys("empty", "", "", kForward), KeyList{});
  EXPECT_EQ(Keys("empty", "a", "z", kForward), KeyList{});
  EXPECT_EQ(Keys("empty", "", "", kBackward), KeyList{});
  EXPECT_EQ(Keys("empty", "a", "z", kBackward), KeyList{});
}

}  // namespace
}  // namespace tigerdoc::storage
