#pragma once
// The $sort stage: a blocking, stable sort on SortSpec keys
// (engine/query/sort.h) through the engine's Sorter (engine/query/sorter.h)
// with the command's blocking-stage options
// (ExpressionContext::BlockingSorterOptions): past max_memory_bytes it
// spills sorted runs to temp_dir with allowDiskUse, and fails with
// QueryExceededMemoryLimitNoDiskUseAllowed (292) "Sort exceeded memory
// limit of N bytes, but did not opt in to external sorting." without.
//
// Top-k (MongoDB's $sort + $limit coalescence): a SortStageSpec may carry a
// limit k (Pipeline::Parse sets it from the $skip / $limit stages after the
// $sort); the Sorter then holds only the best k rows, so
// [{$sort: ...}, {$limit: 10}] over any input holds ten documents and never
// needs allowDiskUse. The $limit stage still runs after it.
//
// Ownership: a SortStageSpec shares its immutable SortSpec with the stages
// it builds. Thread-safety: as StageSpec / Stage.

#include <cstdint>
#include <memory>

#include "engine/agg/stage.h"
#include "engine/query/sort.h"

namespace tigerdoc::agg {

class SortStageSpec : public StageSpec {
 public:
  SortStageSpec(std::shared_ptr<const query::SortSpec> spec, int64_t limit)
      : spec_(std::move(spec)), limit_(limit) {}

  std::string_view name() const override { return "$sort"; }
  StatusWith<StagePtr> Build(StagePtr input, const ExpressionContext* ctx) const override;

  // 0: sorts everything; k > 0: only the first k rows come out.
  int64_t limit() const { return limit_; }
  // The same sort, top-k with `limit`.
  std::unique_ptr<SortStageSpec> WithLimit(int64_t limit) const {
    return std::make_unique<SortStageSpec>(spec_, limit);
  }

 private:
  std::shared_ptr<const query::SortSpec> spec_;
  int64_t limit_;
};

// A $sort stage over `input` ($bucket and $sortByCount sort their groups
// with it); `limit` as SortStageSpec's.
StagePtr MakeSortStage(StagePtr input, const ExpressionContext* ctx,
                       std::shared_ptr<const query::SortSpec> spec, int64_t limit = 0);

}  // namespace tigerdoc::agg
