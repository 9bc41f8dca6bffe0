#pragma once
// AggregateCursor: one running aggregation, batch by batch, over the
// engine's collections.
//
//   AggregateCursor ─ owns ─▶ Pipeline ─ Run ─▶ stage chain ─ pulls ─▶ ScanSource
//                                                              └───▶ ScanSource per $lookup /
//                                                                    $unionWith / $graphLookup
//   ScanSource = a PlanExecutor (shard targeting, leading $match pushed down)
//
// Storage sessions are borrowed per request (one per find/getMore), so the
// sources read through a SessionSlot that FillBatch points at the caller's
// session for the duration of the call: between getMores nothing is pinned.
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
};

// Opens scans of the engine's collections for $lookup, $unionWith and
// $graphLookup, and for the pipeline's own input.
class EngineResolver : public agg::CollectionResolver {
 public:
  EngineResolver(catalog::Catalog* catalog, std::shared_ptr<SessionSlot> slot)
      : catalog_(catalog), slot_(std::move(slot)) {}
  StatusWith<std::unique_ptr<agg::DocumentSource>> Open(std::string_view db, std::string_view coll,
                                                        const bson_t* filter) override;

 private:
  catalog::Catalog* catalog_;
  std::shared_ptr<SessionSlot> slot_;
};

class AggregateCursor : public query::BatchSource {
 public:
  // `pipeline_array` has already had a leading $collStats removed when
  // `input` is given: the documents it produced then feed the pipeline.
  static StatusWith<std::unique_ptr<AggregateCursor>> Make(
      catalog::Catalog* catalog, std::string db, std::string coll, const bson_t* pipeline_array,
      agg::ExpressionContext ctx, std::optional<std::vector<bson::BsonDoc>> input);

  // Appends up to `max_docs` results (fewer once `max_bytes` is reached);
  // sets *exhausted when the pipeline has no more.
  Status FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                   std::vector<bson::BsonDoc>* out, bool* exhausted) override;

 private:
  AggregateCursor() = default;

  std::shared_ptr<SessionSlot> slot_;
  std::unique_ptr<EngineResolver> resolver_;  // outlives the pipeline's stages
  std::optional<agg::Pipeline> pipeline_;
  agg::StagePtr stage_;
  bool done_ = false;
};

}  // namespace tigerdoc::engine
