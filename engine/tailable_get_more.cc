// Tailable getMore: the executor's collection scan is re-armed after the
// last record it read (PlanExecutor::RearmTail); record keys of a capped
// store lead with the insertion sequence, so "after" is "inserted later".
// Capped writers commit in sequence order (they hold the store's capped
// write mutex through commit), so a reader never passes a record that is
// still to commit. Waiting uses the store's commit counter, read before
// the scan so an insert that commits during the scan is not missed.

#include "engine/tailable_get_more.h"

#include <algorithm>
#include <chrono>

#include "engine/storage/sharded_record_store.h"

namespace tigerdoc::engine {
namespace {

using Clock = std::chrono::steady_clock;

constexpr char kPositionLost[] = "CollectionScan died due to position in capped collection being deleted. ";

// CappedPositionLost when the oldest kept record is newer than the last one
// this cursor read (it was removed, and maybe others after it).
Status CheckPosition(storage::Session& session, const storage::ShardedRecordStore& store,
                     const std::optional<std::string>& last_read) {
  if (!last_read) return Status::OK();
  ASSIGN_OR_RETURN(storage::Cursor cursor,
                   session.Scan(store.TableName(0), store.OldestKeyLowerBound(), ""));
  Status status;
  if (!cursor.Next(&status)) return status;  // empty: nothing to lose
  const uint64_t oldest = storage::ShardedRecordStore::SequenceOf(cursor.key());
  if (oldest > storage::ShardedRecordStore::SequenceOf(*last_read)) {
    return Status(ErrorCode::kCappedPositionLost,
                  std::string(kPositionLost) + "Last seen record id: RecordId(" +
                      std::to_string(storage::ShardedRecordStore::SequenceOf(*last_read)) + ")");
  }
  return Status::OK();
}

}  // namespace

StatusWith<CursorBatch> TailableGetMore(const GetMoreParams& params,
                                        query::CursorManager::Pin& cursor,
                                        storage::StorageEngine& storage) {
  query::PlanExecutor& exec = *cursor->executor;
  const bool await_data = exec.spec().await_data;
  if (params.max_time_ms && !await_data) {
    cursor.Return();  // the cursor stays usable, as in MongoDB
    return Status(ErrorCode::kBadValue,
                  "cannot set maxTimeMS on getMore command for a non-awaitData cursor");
  }
  std::shared_ptr<catalog::CollectionEntry> coll = exec.collection();
  const storage::ShardedRecordStore& store = *coll->store;
  const Clock::time_point deadline =
      Clock::now() + std::chrono::milliseconds(params.max_time_ms.value_or(1000));
  query::Interrupt interrupt;
  interrupt.set_kill_flag(&cursor->kill_pending);
  exec.SetInterrupt(interrupt);

  CursorBatch batch;
  batch.ns = coll->metadata.ns;
  const int64_t max_docs = params.batch_size.value_or(INT64_MAX);
  for (;;) {
    const uint64_t seen = store.commits();
    {
      storage::Session session = storage.NewSession();
      std::optional<std::string> last_read = exec.RearmTail();
      // An error destroys the cursor (the Pin is dropped unreturned).
      RETURN_IF_ERROR(CheckPosition(session, store, last_read));
      bool exhausted = false;
      RETURN_IF_ERROR(exec.FillBatch(session, max_docs, kMaxBatchBytes, &batch.docs, &exhausted));
    }
    if (!batch.docs.empty() || !await_data || Clock::now() >= deadline) break;
    // Short slices, so a killCursors or killOp is noticed while waiting.
    query::BeforeIdleWait();  // no long-work slot held while idle
    store.WaitForCommitAfter(seen, std::min(deadline, Clock::now() + std::chrono::milliseconds(100)));
    if (cursor->kill_pending.load()) {
      return Status(ErrorCode::kCursorKilled, "cursor killed while waiting for data");
    }
  }
  batch.cursor_id = cursor->id;
  cursor.Return();
  return batch;
}

}  // namespace tigerdoc::engine
