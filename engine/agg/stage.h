#pragma once
// Stage: one step of an aggregation pipeline at run time, pulled by its
// consumer (LevelDB-iterator style).
//
//   DocumentSource ─► SourceStage ─► $match ─► $group ─► $sort ─► caller
//                                     each stage owns its input stage
//
// Contract of Next():
//   * returns the next output document, std::nullopt when exhausted (and on
//     every later call), or an error Status; after an error the stage must
//     not be called again.
//   * documents are returned by value; a stage keeps no reference to what
//     it returned.
//   * blocking stages ($group, $sort, $bucketAuto, $facet, ...) consume
//     their whole input on the first call.
//
// A StageSpec is the parsed, immutable form of one stage of the pipeline
// specification; Build() makes a fresh runtime Stage over an input, so one
// parsed Pipeline can be run many times ($lookup's sub-pipelines,
// $facet).
//
// Ownership: a Stage owns its input; a StageSpec is owned by its Pipeline.
// Thread-safety: a Stage is used by one thread; StageSpecs are immutable.

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <string_view>

#include "engine/agg/expression_context.h"
#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::agg {

class Stage {
 public:
  virtual ~Stage() = default;
  virtual StatusWith<std::optional<bson::BsonDoc>> Next() = 0;
  // Execution statistics of its own the stage adds to explain
  // ("executionStats"), e.g. what $lookup examined in the foreign
  // collection. Called after the stage returned its last document.
  virtual void AppendExplainStats(bson_t* /*out*/) const {}
};
using StagePtr = std::unique_ptr<Stage>;

class StageSpec {
 public:
  virtual ~StageSpec() = default;
  // "$match", "$group", ...
  virtual std::string_view name() const = 0;
  // `input` is null for stages that produce their own documents
  // ($documents). `ctx` outlives the returned stage.
  virtual StatusWith<StagePtr> Build(StagePtr input, const ExpressionContext* ctx) const = 0;
  // True for stages that must come first ($documents).
  virtual bool is_source() const { return false; }
};
using StageSpecPtr = std::unique_ptr<StageSpec>;

// Adapts a DocumentSource to a Stage.
StagePtr MakeSourceStage(std::unique_ptr<DocumentSource> source);

}  // namespace tigerdoc::agg
