#pragma once
// Pipeline: a parsed aggregation pipeline, and the entry point the engine
// uses to run one.
//
//   auto p = Pipeline::Parse(pipeline_array, ctx);        // parse once
//   // optional push-down of a leading $match / $sort / $limit:
//   const bson_t* filter = p.value().leading_match();     // may be null
//   auto stage = p.value().Run(std::move(scan));          // run over a scan
//   while (auto doc = stage->Next(), doc.ok() && doc.value()) { ... }
//
// Push-down: leading_match() returns the filter of a first $match stage
// (null when the pipeline does not start with one, or when that $match
// uses $expr). The engine may use it to target shards and indexes; the
// stage still runs, so a scan that returns a superset is always correct.
// leading_sort() / leading_limit() describe a $sort and a $limit that
// directly follow (the optional) leading $match, in the same spirit; a
// source that returns its documents in leading_sort() order (and at least
// the first sort_limit() of them, when that is set) is run with
// RunOptions::source_sorted, which leaves the $sort stage out.
//
// Top-k: Parse gives each $sort the number of rows the stages after it can
// use (sort_limit(): a following $limit plus the $skips before it, across
// $project / $addFields / $set / $unset; MongoDB's $sort + $limit
// coalescence), so the sort holds only those (stages/sort.h).
//
// Errors of Parse: 40323 "A pipeline stage specification object must
// contain exactly one field.", 40324 "Unrecognized pipeline stage name:
// '$foo'", 14 when the pipeline or a stage is not an object, 40602 when
// $documents is not first, and each stage's own errors.
//
// Ownership: a Pipeline owns its stage specs and a copy of the
// ExpressionContext (the resolver it points at must outlive the Pipeline and
// every stage Run() returns). The stage Run() returns refers to the
// Pipeline: keep the Pipeline alive while pulling from it.
// Thread-safety: Run() may be called concurrently; each returned stage is
// single-threaded.

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <vector>

#include "engine/agg/expression_context.h"
#include "engine/agg/stage.h"
#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::agg {

class Pipeline {
 public:
  // `pipeline_array` is the BSON array (or array-like document) of stages.
  static StatusWith<Pipeline> Parse(const bson_t* pipeline_array, const ExpressionContext& ctx);

  Pipeline(Pipeline&&) noexcept;
  Pipeline& operator=(Pipeline&&) noexcept;
  ~Pipeline();

  // Builds the stage chain over `source`. `source` may be null when the
  // pipeline starts with $documents (or for an empty collection).
  struct RunOptions {
    // `source` already yields the leading $sort's order (a pushed-down
    // sort): that stage is not built.
    bool source_sorted = false;
  };
  StatusWith<StagePtr> Run(std::unique_ptr<DocumentSource> source) const { return Run(std::move(source), {}); }
  StatusWith<StagePtr> Run(std::unique_ptr<DocumentSource> source, RunOptions options) const;

  // Push-down hints (see above). Pointers are valid while *this lives.
  const bson_t* leading_match() const { return leading_match_ ? leading_match_->get() : nullptr; }
  const bson_t* leading_sort() const { return leading_sort_ ? leading_sort_->get() : nullptr; }
  std::optional<int64_t> leading_limit() const { return leading_limit_; }
  // The top-k of stage i when it is a $sort (see above); 0: unbounded or
  // not a $sort.
  int64_t sort_limit(size_t i) const;

  size_t size() const { return stages_.size(); }
  // The first stage is a $match with $text, which only a collection scan
  // can run (stages/match.cc): sub-pipelines refuse it.
  bool leads_with_text() const { return leads_with_text_; }
  // True when the last stage is $out or $merge (which produce nothing).
  bool ends_with_writer() const;
  const StageSpec& stage(size_t i) const { return *stages_[i]; }
  const ExpressionContext& context() const { return *ctx_; }

 private:
  Pipeline() = default;

  std::shared_ptr<const ExpressionContext> ctx_;
  bool leads_with_text_ = false;
  std::vector<StageSpecPtr> stages_;
  std::optional<bson::BsonDoc> leading_match_;
  std::optional<bson::BsonDoc> leading_sort_;
  std::optional<size_t> leading_sort_index_;  // the stage leading_sort_ is
  std::optional<int64_t> leading_limit_;
};

// Runs `pipeline` over `docs` and collects the output (tests, $facet,
// $lookup).
StatusWith<std::vector<bson::BsonDoc>> RunToVector(const Pipeline& pipeline,
                                                   std::unique_ptr<DocumentSource> source);
// Drains a stage.
StatusWith<std::vector<bson::BsonDoc>> Drain(Stage* stage);

}  // namespace tigerdoc::agg
