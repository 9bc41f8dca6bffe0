#include "engine/agg/pipeline.h"

#include <limits>
#include <string_view>

#include "engine/agg/document_metadata.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/agg/stages/sort.h"
#include "engine/agg/stages/writer_util.h"

namespace tigerdoc::agg {
namespace {

// Stages that neither drop, add nor reorder documents: a $limit after them
// bounds what the $sort before them must produce.
bool KeepsEveryDocument(std::string_view name) {
  return name == "$project" || name == "$addFields" || name == "$set" || name == "$unset";
}

// Stages that open collections of their own while the pipeline runs ($facet
// counts: its sub-pipelines may).
bool ReadsOtherCollections(std::string_view name) {
  return name == "$lookup" || name == "$graphLookup" || name == "$unionWith" || name == "$facet";
}

// How many rows the $sort at `at` must produce: the first $limit after it
// plus every $skip before that limit, across stages that keep every
// document (MongoDB's $sort + $limit coalescence, with $skip + $limit
// swapped to $limit(skip + limit) + $skip); 0 when unbounded. `counts[i]`
// is the argument of stage i when it is a $skip or $limit.
int64_t TopKOf(const std::vector<StageSpecPtr>& stages, const std::vector<int64_t>& counts, size_t at) {
  int64_t skipped = 0;
  for (size_t i = at + 1; i < stages.size(); ++i) {
    const std::string_view name = stages[i]->name();
    if (name == "$limit") {
      if (skipped > std::numeric_limits<int64_t>::max() - counts[i]) return 0;
      return skipped + counts[i];
    }
    if (name == "$skip") {
      if (skipped > std::numeric_limits<int64_t>::max() - counts[i]) return 0;
      skipped += counts[i];
    } else if (!KeepsEveryDocument(name)) {
      return 0;
    }
  }
  return 0;
}

}  // namespace

Pipeline::Pipeline(Pipeline&&) noexcept = default;
Pipeline& Pipeline::operator=(Pipeline&&) noexcept = default;
Pipeline::~Pipeline() = default;

namespace {

// Whether a $match filter holds $text (at its top level or in the clauses
// of $and, $or, $nor, where the matcher finds it).
bool FilterHasText(const bson_iter_t* filter) {
  bson_iter_t it;
  if (!BSON_ITER_HOLDS_DOCUMENT(filter) || !bson_iter_recurse(filter, &it)) return false;
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if (key == "$text") return true;
    if ((key == "$and" || key == "$or" || key == "$nor") && BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t clause;
      bson_iter_recurse(&it, &clause);
      while (bson_iter_next(&clause)) {
        if (FilterHasText(&clause)) return true;
      }
    }
  }
  return false;
}

bool MatchHasText(const bson_iter_t* stage) { return FilterHasText(stage); }

// What leaves the pipeline (its output, what $out / $merge write) has no
// metadata fields (document_metadata.h).
StagePtr StripMetadata(StagePtr input) {
  return MakeMapStage(std::move(input), nullptr,
                      [](bson::BsonDoc doc, Variables*) -> StatusWith<std::optional<bson::BsonDoc>> {
                        return std::optional<bson::BsonDoc>(WithoutMetadata(std::move(doc)));
                      });
}

}  // namespace

StatusWith<Pipeline> Pipeline::Parse(const bson_t* pipeline_array, const ExpressionContext& ctx) {
  Pipeline p;
  // Stages keep pointers to this context; the one flag Parse learns
  // (reads_other_collections) is set on it once every stage is parsed.
  auto context = std::make_shared<ExpressionContext>(ctx);
  context->reads_other_collections = false;
  // Metadata a sub-pipeline reads is carried by the pipeline around it as
  // well (its context starts as a copy of this one).
  const MetadataUse use = ScanMetadataUse(pipeline_array);
  context->carries_text_score |= use.text_score;
  context->carries_sort_key |= use.sort_key;
  p.ctx_ = context;
  bson_iter_t it;
  bson_iter_init(&it, pipeline_array);
  // Push-down hints are recorded while the pipeline still starts with
  // $match, then $sort, then $limit.
  bool prefix = true;
  std::vector<int64_t> counts;  // per stage: a $skip's or $limit's argument
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Error(14, "Each element of the 'pipeline' array must be an object");
    }
    bson_t stage;
    uint32_t len;
    const uint8_t* data;
    bson_iter_document(&it, &len, &data);
    bson_init_static(&stage, data, len);
    if (bson_count_keys(&stage) != 1) {
      return Error(40323, "A pipeline stage specification object must contain exactly one field.");
    }
    bson_iter_t s;
    bson_iter_init(&s, &stage);
    bson_iter_next(&s);
    std::string_view name(bson_iter_key(&s), bson_iter_key_len(&s));
    StageParseFn fn = FindStage(name);
    if (fn == nullptr) {
      return Error(40324, "Unrecognized pipeline stage name: '" + std::string(name) + "'");
    }
    ASSIGN_OR_RETURN(StageSpecPtr spec, fn(&s, *p.ctx_));
    if (name == "$match" && MatchHasText(&s)) {
      // The leading $match's $text runs in the scan (stages/match.cc).
      if (!p.stages_.empty()) {
        return Error(17313, "$match with $text is only allowed as the first pipeline stage");
      }
      p.leads_with_text_ = true;
      context->text_score_available = true;
    }
    int64_t count = 0;
    if (name == "$skip" || name == "$limit") Value(&s).AsInt64Exact(&count);  // parsed: exact
    counts.push_back(count);
    if (spec->is_source() && !p.stages_.empty()) {
      return Error(40602, std::string(name) + " is only valid as the first stage in a pipeline");
    }
    if (prefix) {
      bool has_expr = false;
      if (name == "$match" && !p.leading_match_ && !p.leading_sort_ && !p.leading_limit_) {
        bson_t f;
        bson_iter_document(&s, &len, &data);
        bson_init_static(&f, data, len);
        bson_iter_t e;
        has_expr = bson_iter_init_find(&e, &f, "$expr");
        if (!has_expr) p.leading_match_ = bson::BsonDoc::CopyOf(&f);
        prefix = !has_expr;
      } else if (name == "$sort" && !p.leading_sort_ && !p.leading_limit_) {
        bson_t f;
        bson_iter_document(&s, &len, &data);
        bson_init_static(&f, data, len);
        p.leading_sort_ = bson::BsonDoc::CopyOf(&f);
        p.leading_sort_index_ = p.stages_.size();
      } else if (name == "$limit" && !p.leading_limit_) {
        int64_t n = 0;
        Value(&s).AsInt64Exact(&n);
        p.leading_limit_ = n;
        prefix = false;
      } else {
        prefix = false;
      }
    }
    if (ReadsOtherCollections(name)) context->reads_other_collections = true;
    p.stages_.push_back(std::move(spec));
  }
  for (size_t i = 0; i < p.stages_.size(); ++i) {
    const auto* sort = dynamic_cast<const SortStageSpec*>(p.stages_[i].get());
    if (sort == nullptr) continue;
    const int64_t k = TopKOf(p.stages_, counts, i);
    if (k > 0) p.stages_[i] = sort->WithLimit(k);
  }
  for (size_t i = 0; i + 1 < p.stages_.size(); ++i) {
    if (IsWriterStage(p.stages_[i]->name())) {
      return Error(40601, std::string(p.stages_[i]->name()) + " can only be the final stage in the pipeline");
    }
  }
  return p;
}

bool Pipeline::ends_with_writer() const {
  return !stages_.empty() && IsWriterStage(stages_.back()->name());
}

int64_t Pipeline::sort_limit(size_t i) const {
  const auto* sort = i < stages_.size() ? dynamic_cast<const SortStageSpec*>(stages_[i].get()) : nullptr;
  return sort ? sort->limit() : 0;
}

StatusWith<StagePtr> Pipeline::Run(std::unique_ptr<DocumentSource> source, RunOptions options) const {
  StagePtr stage = MakeSourceStage(std::move(source));
  for (size_t i = 0; i < stages_.size(); ++i) {
    // The source returns its documents in the leading $sort's order (and
    // at most its top-k): the stage would be a no-op.
    if (options.source_sorted && leading_sort_index_ == i) continue;
    const StageSpecPtr& spec = stages_[i];
    if (ctx_->carries_metadata() && IsWriterStage(spec->name())) stage = StripMetadata(std::move(stage));
    ASSIGN_OR_RETURN(stage, spec->Build(spec->is_source() ? nullptr : std::move(stage), ctx_.get()));
  }
  if (ctx_->carries_metadata()) stage = StripMetadata(std::move(stage));
  return stage;
}

StatusWith<std::vector<bson::BsonDoc>> Drain(Stage* stage) {
  std::vector<bson::BsonDoc> out;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, stage->Next());
    if (!doc) return out;
    out.push_back(std::move(*doc));
  }
}

StatusWith<std::vector<bson::BsonDoc>> RunToVector(const Pipeline& pipeline,
                                                   std::unique_ptr<DocumentSource> source) {
  ASSIGN_OR_RETURN(StagePtr stage, pipeline.Run(std::move(source)));
  return Drain(stage.get());
}

}  // namespace tigerdoc::agg
