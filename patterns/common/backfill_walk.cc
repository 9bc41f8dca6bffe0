#include "patterns/common/backfill_walk.h"

#include <string>

#include "engine/progress_meter.h"

namespace tigerdoc::patterns {
namespace {

// Progress is reported every this many documents (a report takes a lock).
constexpr int64_t kReportEvery = 1000;

}  // namespace

Status ForEachDocumentWithProgress(storage::Session& session, const catalog::CollectionEntry& coll,
                                   std::string_view pattern,
                                   const std::function<Status(int shard, const bson_t* doc)>& fn) {
  engine::ProgressMeter progress("Pattern backfill: " + std::string(pattern), coll.metadata.ns,
                                 coll.store->TotalStats().count);
  int64_t unreported = 0;
  Status walked = coll.store->ForEachDocument(session, [&](int shard, const bson_t* doc) -> Status {
    RETURN_IF_ERROR(fn(shard, doc));
    if (++unreported == kReportEvery) {
      progress.Add(unreported);
      unreported = 0;
    }
    return Status::OK();
  });
  progress.Add(unreported);
  progress.Finish();
  return walked;
}

}  // namespace tigerdoc::patterns
