// CursorManager's owner of a cursor (who opened it, for the --auth check of
// getMore/killCursors) lives on the cursor: it is gone however the cursor
// ends (killed idle or pinned, exhausted or failed while pinned, reaped).

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "engine/query/cursor_manager.h"
#include "tests/engine/query/no_batches.h"

namespace tigerdoc::query {
namespace {

int64_t Open(CursorManager& cursors, const std::string& owner) {
  const int64_t id = cursors.Register("db.c", std::make_unique<NoBatches>());
  EXPECT_TRUE(cursors.SetOwner(id, owner));
  EXPECT_EQ(cursors.OwnerOf(id), owner);
  return id;
}

TEST(CursorOwnerTest, OwnerEndsWithTheCursor) {
  CursorManager cursors(std::chrono::milliseconds(50));
  EXPECT_EQ(cursors.OwnerOf(12345), std::nullopt);
  EXPECT_FALSE(cursors.SetOwner(12345, "a@admin"));

  const int64_t killed = Open(cursors, "a@admin");
  EXPECT_TRUE(cursors.Kill(killed, "db.c"));
  EXPECT_EQ(cursors.OwnerOf(killed), std::nullopt);

  // Pinned: still owned; destroyed without Return() (exhausted or failed).
  const int64_t exhausted = Open(cursors, "b@admin");
  {
    auto pin = cursors.CheckOut(exhausted, "db.c");
    ASSERT_TRUE(pin.ok());
    EXPECT_EQ(cursors.OwnerOf(exhausted), "b@admin");
  }
  EXPECT_EQ(cursors.OwnerOf(exhausted), std::nullopt);

  // Killed while pinned: gone once its getMore returns it.
  const int64_t killed_pinned = Open(cursors, "c@admin");
  {
    auto pin = cursors.CheckOut(killed_pinned, "db.c");
    ASSERT_TRUE(pin.ok());
    EXPECT_TRUE(cursors.Kill(killed_pinned, "db.c"));
    pin.value().Return();
  }
  EXPECT_EQ(cursors.OwnerOf(killed_pinned), std::nullopt);

  // Returned: kept; reaped after the idle timeout: gone.
  const int64_t idle = Open(cursors, "d@admin");
  {
    auto pin = cursors.CheckOut(idle, "db.c");
    ASSERT_TRUE(pin.ok());
    pin.value().Return();
  }
  EXPECT_EQ(cursors.OwnerOf(idle), "d@admin");
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  EXPECT_GE(cursors.ReapIdle(), 1);
  EXPECT_EQ(cursors.OwnerOf(idle), std::nullopt);
  EXPECT_EQ(cursors.open_count(), 0u);
}

}  // namespace
}  // namespace tigerdoc::query
