#pragma once
// AggregateCursor: one running aggregation, batch by batch, over the
// engine's collections.
//
//   AggregateCursor ─ owns ─▶ Pipeline ─ Run ─▶ stage chain ─ pulls ─▶ ScanSource
//                                                              └───▶ ScanSource per $lookup /
//                                                                    $unionWith / $graphLookup
//   ScanSource = a PlanExecutor running the query the aggregate explain's
//                $cursor prints (SplitOf, aggregate_explain_run.h): the
//                leading $match (shard targeting, index bounds) and a $sort
//                right after it with its top-k (an index provides the order,
//                or the executor's Sorter sorts under the blocking-stage
//                memory limit, spilling with allowDiskUse); the pipeline
//                then runs without that $sort stage.
//
// Storage sessions are borrowed per request (one per find/getMore), so the
// sources read through a SessionSlot that FillBatch points at the caller's
// session for the duration of the call: between getMores nothing is pinned.
//
// Interruption (maxTimeMS, killCursors): the slot also carries the current
// request's Interrupt. Every scan source of the cursor (the pipeline's own,
// and those $lookup / $unionWith / $graphLookup open) checks it every few
// dozen documents it hands up, and passes it to its PlanExecutor; FillBatch
// checks it between results. So a blocking stage ($group, $sort) consuming
// a large input, a sub-scan, or a $out / $merge pipeline stops with
// MaxTimeMSExpired (50) or CursorKilled (237) at its next check.
//
// Thread-safety: none; one cursor serves one request at a time.

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/agg/pipeline.h"
#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/catalog/catalog.h"
#include "engine/query/cursor_manager.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

// The session the sources of one cursor read with, during one request.
struct SessionSlot {
  storage::Session* session = nullptr;
  query::Interrupt interrupt;
};

// What the aggregate command asks of the pipeline's own collection scan
// (not of the scans $lookup and the like open): the planner's hint.
struct ScanOptions {
  query::IndexHint hint = query::IndexHint::kNone;
  bson::BsonDoc hint_index;  // kIndex: {"": name} or the key pattern
  bool bypass_document_validation = false;  // for the writes of $out / $merge
};

class Engine;

// Opens scans of the engine's collections for $lookup, $unionWith and
// $graphLookup, and for the pipeline's own input; writes for $out and
// $merge through the engine's write path (Engine::InsertMany / Update, each
// borrowing its own session) and catalog (temporary collection, atomic
// rename over the target).
class EngineResolver : public agg::CollectionResolver {
 public:
  EngineResolver(Engine* engine, std::shared_ptr<SessionSlot> slot,
                 bool bypass_validation = false)
      : engine_(engine), slot_(std::move(slot)), bypass_validation_(bypass_validation) {}
  StatusWith<std::unique_ptr<agg::DocumentSource>> Open(std::string_view db, std::string_view coll,
                                                        const bson_t* filter) override;
  StatusWith<agg::WriteTarget> DescribeTarget(std::string_view db, std::string_view coll) override;
  Status Insert(std::string_view db, std::string_view coll, std::vector<bson::BsonDoc> docs) override;
  Status Replace(std::string_view db, std::string_view coll, const bson_t* id,
                 const bson_t* replacement, bool* matched) override;
  StatusWith<std::string> CreateTemp(std::string_view db, std::string_view like) override;
  Status ReplaceWithTemp(std::string_view db, std::string_view temp, std::string_view target_db,
                         std::string_view target) override;
  Status DropTemp(std::string_view db, std::string_view temp) override;
  // The collation the scans Open() makes run with (the pipeline's).
  void set_collator(const bson::Collator* collator) { collator_ = collator; }

 private:
  Status CopyIndexes(const catalog::CollectionEntry& from, catalog::CollectionEntry& to);
  // Open() of a view: the aggregation it resolves to, batch by batch.
  StatusWith<std::unique_ptr<agg::DocumentSource>> OpenView(std::string_view db, std::string_view view,
                                                            const bson_t* filter);

  Engine* engine_;
  const bson::Collator* collator_ = nullptr;
  std::shared_ptr<SessionSlot> slot_;
  bool bypass_validation_ = false;  // bypassDocumentValidation
};

class AggregateCursor : public query::BatchSource {
 public:
  // `pipeline_array` has already had a leading $collStats / $indexStats
  // removed when `input` is given: the documents it produced then feed the
  // pipeline. Errors: the pipeline's parse errors, the scan's planning
  // errors (BadValue for a hint naming no index).
  static StatusWith<std::unique_ptr<AggregateCursor>> Make(
      Engine* engine, std::string db, std::string coll, const bson_t* pipeline_array,
      agg::ExpressionContext ctx, std::optional<std::vector<bson::BsonDoc>> input,
      const ScanOptions& scan = {});

  // Appends up to `max_docs` results (fewer once `max_bytes` is reached);
  // sets *exhausted when the pipeline has no more.
  Status FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                   std::vector<bson::BsonDoc>* out, bool* exhausted) override;
  // The interrupt of the next FillBatch (the request's deadline, the
  // cursor's kill flag); none until set.
  void SetInterrupt(const query::Interrupt& interrupt) override { slot_->interrupt = interrupt; }
  // The deadline of the current request (maxTimeMS); none without one.
  const std::optional<std::chrono::steady_clock::time_point>& deadline() const {
    return slot_->interrupt.deadline();
  }

  // True when the pipeline ends with $out or $merge: it runs to completion
  // in the aggregate command itself and returns an empty cursor.
  bool writes() const { return pipeline_->ends_with_writer(); }

 private:
  AggregateCursor() = default;

  std::shared_ptr<SessionSlot> slot_;
  std::unique_ptr<EngineResolver> resolver_;  // outlives the pipeline's stages
  std::optional<agg::Pipeline> pipeline_;
  agg::StagePtr stage_;
  bool done_ = false;
};

}  // namespace tigerdoc::engine
