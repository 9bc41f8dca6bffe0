// $sort: a blocking, stable sort on SortSpec keys (engine/query/sort.h).
// Memory limit: 292 past ExpressionContext::max_memory_bytes unless
// allowDiskUse (external sorting is not implemented; with allowDiskUse the
// sort stays in memory).

#include <algorithm>

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/query/sort.h"

namespace tigerdoc::agg {
namespace {

class SortStage : public Stage {
 public:
  SortStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const query::SortSpec> spec)
      : input_(std::move(input)), ctx_(ctx), spec_(std::move(spec)) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (!sorted_) {
      size_t memory = 0;
      while (true) {
        ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
        if (!doc) break;
        std::string key = spec_->KeyFor(doc->get());
        memory += doc->size() + key.size() + 32;
        if (memory > ctx_->max_memory_bytes && !ctx_->allow_disk_use) {
          return Error(292, "Sort exceeded memory limit of " + std::to_string(ctx_->max_memory_bytes) +
                                " bytes, but did not opt in to external sorting.");
        }
        rows_.emplace_back(std::move(key), std::move(*doc));
      }
      std::stable_sort(rows_.begin(), rows_.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      sorted_ = true;
    }
    if (pos_ >= rows_.size()) return std::optional<bson::BsonDoc>();
    return std::optional<bson::BsonDoc>(std::move(rows_[pos_++].second));
  }

 private:
  StagePtr input_;
  const ExpressionContext* ctx_;
  std::shared_ptr<const query::SortSpec> spec_;
  bool sorted_ = false;
  std::vector<std::pair<std::string, bson::BsonDoc>> rows_;
  size_t pos_ = 0;
};

}  // namespace

StagePtr MakeSortStage(StagePtr input, const ExpressionContext* ctx,
                       std::shared_ptr<const query::SortSpec> spec) {
  return std::make_unique<SortStage>(std::move(input), ctx, std::move(spec));
}

StatusWith<StageSpecPtr> ParseSortStage(const bson_iter_t* spec, const ExpressionContext&) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(15973, "the $sort key specification must be an object");
  }
  bson_t doc = bson::SubDocumentView(spec);
  if (bson_empty(&doc)) return Error(15976, "$sort stage must have at least one sort key");
  ASSIGN_OR_RETURN(query::SortSpec parsed, query::SortSpec::Parse(&doc));
  auto shared = std::make_shared<const query::SortSpec>(std::move(parsed));
  return MakeSpec("$sort", [shared](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeSortStage(std::move(input), c, shared);
  });
}

}  // namespace tigerdoc::agg
