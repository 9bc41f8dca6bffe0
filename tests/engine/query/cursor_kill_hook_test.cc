// CursorManager's pinned-kill hook: Kill calls it after marking a pinned
// cursor (its getMore may wait for a long work slot, which the engine's
// hook wakes), and only then: not for an idle cursor, which Kill destroys,
// nor for an unknown id or another namespace's cursor.

#include <gtest/gtest.h>

#include <memory>

#include "engine/query/cursor_manager.h"
#include "tests/engine/query/no_batches.h"

namespace tigerdoc::query {
namespace {

TEST(CursorKillHookTest, CalledOnceForEachKillOfAPinnedCursorOnly) {
  CursorManager cursors;
  int calls = 0;
  cursors.SetOnPinnedKill([&] { ++calls; });

  const int64_t idle = cursors.Register("db.c", std::make_unique<NoBatches>());
  EXPECT_TRUE(cursors.Kill(idle, "db.c"));
  EXPECT_FALSE(cursors.Kill(idle, "db.c"));
  EXPECT_FALSE(cursors.Kill(424242, "db.c"));
  EXPECT_EQ(calls, 0);

  const int64_t pinned = cursors.Register("db.c", std::make_unique<NoBatches>());
  auto pin = cursors.CheckOut(pinned, "db.c");
  ASSERT_TRUE(pin.ok());
  EXPECT_FALSE(cursors.Kill(pinned, "db.other"));
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(pin.value()->kill_pending.load());
  EXPECT_TRUE(cursors.Kill(pinned, "db.c"));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(pin.value()->kill_pending.load());
  pin.value().Return();
  EXPECT_EQ(cursors.open_count(), 0u);
}

// Without a hook (a CursorManager of its own, as in the unit tests) a
// pinned kill only marks the cursor.
TEST(CursorKillHookTest, NoHookOnlyMarks) {
  CursorManager cursors;
  const int64_t pinned = cursors.Register("db.c", std::make_unique<NoBatches>());
  auto pin = cursors.CheckOut(pinned, "db.c");
  ASSERT_TRUE(pin.ok());
  EXPECT_TRUE(cursors.Kill(pinned, "db.c"));
  EXPECT_TRUE(pin.value()->kill_pending.load());
}

}  // namespace
}  // namespace tigerdoc::query
