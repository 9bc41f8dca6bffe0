#pragma once
// ChangeStreamCursor: a tailable, awaitData cursor over the change log for
// one stream (a $changeStream aggregation).
//
//   change log rows ─ Read ─▶ ShapeEvents (scope, options) ─▶ the user's
//   later stages ($match, $project, ...) ─▶ batch
//
// Each FillBatch reads from its position, turns rows into events, runs the
// user's stages over them and appends what comes out. When it has nothing
// and an await time is set (getMore's maxTimeMS, MongoDB's maxAwaitTimeMS),
// it sleeps on the log's condition variable until a commit moves the
// readable position (or the time is up), then reads again. The position
// moves past every row read, matched or not, and up to the readable
// position when the log is exhausted, so post_batch_resume_token() is
// where a resumed stream goes on: the last event returned, or a high-water
// mark past rows this stream did not want.
//
// Thread-safety: none; one request at a time (the cursor manager pins it).

#include <chrono>
#include <memory>
#include <optional>

#include "engine/agg/pipeline.h"
#include "engine/changes/change_events.h"
#include "engine/changes/change_log.h"
#include "engine/changes/resume_token.h"
#include "engine/query/cursor_manager.h"

namespace tigerdoc::engine {

class ChangeStreamCursor : public query::BatchSource {
 public:
  // `pipeline` (may be empty) runs over every event; `ctx` is the context it
  // was parsed with. Starts after `start`.
  ChangeStreamCursor(ChangeLog* log, ChangeStreamScope scope, ChangeStreamOptions options,
                     DocumentLookup lookup, std::unique_ptr<agg::ExpressionContext> ctx,
                     std::optional<agg::Pipeline> pipeline, ResumeToken start);

  Status FillBatch(storage::Session& session, int64_t max_docs, int64_t max_bytes,
                   std::vector<bson::BsonDoc>* out, bool* exhausted) override;
  void SetInterrupt(const query::Interrupt& interrupt) override;
  // How long the next FillBatch may wait for events (0: not at all).
  void SetAwait(std::chrono::milliseconds await) { await_ = await; }
  // killCursors' flag of the cursor, seen while waiting.
  void SetKillFlag(const std::atomic<bool>* kill) { kill_ = kill; }
  // {_data: ...} of the position reached.
  bson::BsonDoc post_batch_resume_token() const { return position_.ToBson(); }

 private:
  // Runs the user's stages over one event.
  Status RunPipeline(bson::BsonDoc event, std::vector<bson::BsonDoc>* out);

  ChangeLog* log_;
  ChangeStreamScope scope_;
  ChangeStreamOptions options_;
  DocumentLookup lookup_;
  std::unique_ptr<agg::ExpressionContext> ctx_;
  std::optional<agg::Pipeline> pipeline_;
  ResumeToken position_;
  std::chrono::milliseconds await_{0};
  const std::atomic<bool>* kill_ = nullptr;
  query::Interrupt interrupt_;
  bool invalidated_ = false;
};

}  // namespace tigerdoc::engine
