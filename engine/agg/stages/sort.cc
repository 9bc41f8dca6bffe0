// $sort (sort.h): every input row goes to a Sorter keyed by
// SortSpec::KeyFor (ties keep input order); the first Next() drains the
// input, later calls read the Sorter's merged output.

#include "engine/agg/stages/sort.h"

#include "engine/agg/document_metadata.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/query/meta_names.h"
#include "engine/query/sorter.h"

namespace tigerdoc::agg {
namespace {

class SortStage : public Stage {
 public:
  SortStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const query::SortSpec> spec,
            int64_t limit)
      : input_(std::move(input)), ctx_(ctx), spec_(std::move(spec)), limit_(limit) {}

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (!sorter_) RETURN_IF_ERROR(Fill());
    bson::BsonDoc doc;
    ASSIGN_OR_RETURN(bool more, sorter_->Next(&doc));
    if (!more) return std::optional<bson::BsonDoc>();
    if (ctx_->carries_sort_key) doc = WithSortKey(std::move(doc), *spec_);
    return std::optional<bson::BsonDoc>(std::move(doc));
  }

 private:
  Status Fill() {
    query::SorterOptions options = ctx_->BlockingSorterOptions();
    options.limit = limit_;
    sorter_ = std::make_unique<query::Sorter>(std::move(options));
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) break;
      std::string key = spec_->KeyFor(doc->get());
      RETURN_IF_ERROR(sorter_->Add(std::move(key), std::move(*doc)));
    }
    input_.reset();  // drained: release what the input holds
    return sorter_->Done();
  }

  StagePtr input_;
  const ExpressionContext* ctx_;
  std::shared_ptr<const query::SortSpec> spec_;
  int64_t limit_;
  std::unique_ptr<query::Sorter> sorter_;
};

}  // namespace

StatusWith<StagePtr> SortStageSpec::Build(StagePtr input, const ExpressionContext* ctx) const {
  return MakeSortStage(std::move(input), ctx, spec_, limit_);
}

StagePtr MakeSortStage(StagePtr input, const ExpressionContext* ctx,
                       std::shared_ptr<const query::SortSpec> spec, int64_t limit) {
  return std::make_unique<SortStage>(std::move(input), ctx, std::move(spec), limit);
}

StatusWith<StageSpecPtr> ParseSortStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(15973, "the $sort key specification must be an object");
  }
  bson_t doc = bson::SubDocumentView(spec);
  if (bson_empty(&doc)) return Error(15976, "$sort stage must have at least one sort key");
  ASSIGN_OR_RETURN(query::SortSpec parsed,
                   query::SortSpec::Parse(&doc, ctx.collator, /*allow_text_score=*/true));
  if (parsed.has_text_score()) {
    // {f: {$meta: "textScore"}}: the score the leading $text gave the
    // document (document_metadata.h); MongoDB refuses it without one.
    if (!ctx.text_score_available) return query::TextScoreUnavailable();
    parsed.SetTextScorer([](const bson_t* d) { return TextScoreOf(d).value_or(0.0); });
  }
  return StageSpecPtr(std::make_unique<SortStageSpec>(
      std::make_shared<const query::SortSpec>(std::move(parsed)), /*limit=*/0));
}

}  // namespace tigerdoc::agg
