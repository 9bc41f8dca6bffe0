// Engine::OpenChangeStream: $changeStream's scope, later stages and start
// position checked, then the first batch of a ChangeStreamCursor.

#include <set>
#include <string_view>

#include "engine/agg/pipeline.h"
#include "engine/changes/change_stream_cursor.h"
#include "engine/changes/change_stream_options.h"
#include "engine/command_expressions.h"
#include "engine/engine.h"

namespace tigerdoc::engine {
namespace {

// Stages that keep one event one event (or none): what MongoDB allows after
// $changeStream.
bool AllowedAfterChangeStream(std::string_view stage) {
  static const std::set<std::string_view> kAllowed = {
      "$match",       "$project", "$addFields", "$set",  "$replaceRoot",
      "$replaceWith", "$redact",  "$unset"};
  return kAllowed.count(stage) != 0;
}

Status CheckStages(const bson_t* pipeline) {
  bson_iter_t stage;
  bson_iter_init(&stage, pipeline);
  while (bson_iter_next(&stage)) {
    bson_iter_t op;
    if (!BSON_ITER_HOLDS_DOCUMENT(&stage) || !bson_iter_recurse(&stage, &op) ||
        !bson_iter_next(&op)) {
      continue;  // the pipeline parser names the error
    }
    const std::string_view name = bson_iter_key(&op);
    if (name == "$changeStream") {
      return Status(static_cast<ErrorCode>(40602),
                    "$changeStream is only valid as the first stage in a pipeline");
    }
    if (!AllowedAfterChangeStream(name)) {
      return Status(ErrorCode::kIllegalOperation,
                    std::string(name) + " is not permitted in a $changeStream pipeline");
    }
  }
  return Status::OK();
}

}  // namespace

StatusWith<CursorBatch> Engine::OpenChangeStream(const ChangeStreamParams& params) {
  ASSIGN_OR_RETURN(ChangeStreamOptions options, ChangeStreamOptions::Parse(params.spec.get()));
  ChangeStreamScope scope;
  CursorBatch batch;
  if (options.all_changes_for_cluster) {
    if (params.db != "admin" || !params.coll.empty()) {
      return Status(ErrorCode::kInvalidOptions,
                    "A $changeStream with 'allChangesForCluster:true' may only be opened on the "
                    "'admin' database, and with no collection name");
    }
    batch.ns = "admin.$cmd.aggregate";
  } else {
    if (params.db == "admin" || params.db == "config" || params.db == "local") {
      return Status(ErrorCode::kInvalidNamespace,
                    "$changeStream may not be opened on the internal " + params.db + " database");
    }
    scope.db = params.db;
    scope.coll = params.coll;
    batch.ns = params.coll.empty() ? params.db + ".$cmd.aggregate" : Namespace(params.db, params.coll);
  }

  RETURN_IF_ERROR(CheckStages(params.pipeline.get()));
  ASSIGN_OR_RETURN(CommandExpressions expressions, CommandExpressions::Make(params.db, nullptr));
  auto ctx = std::make_unique<agg::ExpressionContext>(std::move(expressions.ctx));
  std::optional<agg::Pipeline> pipeline;
  if (!bson_empty(params.pipeline.get())) {
    ASSIGN_OR_RETURN(agg::Pipeline parsed, agg::Pipeline::Parse(params.pipeline.get(), *ctx));
    pipeline.emplace(std::move(parsed));
  }

  // Where the stream starts, and whether the log still holds what follows.
  storage::Session session = storage_->NewSession();
  ASSIGN_OR_RETURN(LogPosition trimmed, change_log_->TrimmedThrough(session));
  ResumeToken start;
  if (options.resume_after || options.start_after) {
    start = options.resume_after ? *options.resume_after : *options.start_after;
    if (start.pos < trimmed) {
      return ChangeStreamHistoryLost();
    }
    if (start.kind != ResumeToken::Kind::kHighWaterMark && trimmed < start.pos) {
      ASSIGN_OR_RETURN(bool found, change_log_->Contains(session, start.pos));
      if (!found) {
        return Status(ErrorCode::kChangeStreamFatalError,
                      "cannot resume stream; the resume token was not found. {_data: \"" +
                          start.ToHex() + "\"}");
      }
    }
  } else if (options.start_at_operation_time) {
    start = ResumeToken{LogPosition::Before(*options.start_at_operation_time),
                        ResumeToken::Kind::kHighWaterMark};
    if (start.pos < trimmed) {
      return ChangeStreamHistoryLost();
    }
  } else {
    start = ResumeToken{change_log_->ReadablePosition(), ResumeToken::Kind::kHighWaterMark};
  }

  DocumentLookup lookup = [this](const std::string& db, const std::string& coll,
                                 const bson_t* key) -> StatusWith<std::optional<bson::BsonDoc>> {
    FindParams find;
    find.db = db;
    find.coll = coll;
    find.filter = bson::BsonDoc::CopyOf(key);
    find.limit = 1;
    find.single_batch = true;
    ASSIGN_OR_RETURN(CursorBatch found, Find(find));
    if (found.docs.empty()) return std::optional<bson::BsonDoc>();
    return std::optional<bson::BsonDoc>(std::move(found.docs[0]));
  };
  auto cursor = std::make_unique<ChangeStreamCursor>(change_log_.get(), std::move(scope),
                                                     std::move(options), std::move(lookup),
                                                     std::move(ctx), std::move(pipeline), start);
  bool exhausted = false;
  const int64_t first_batch = params.batch_size.value_or(101);
  if (first_batch > 0) {
    RETURN_IF_ERROR(cursor->FillBatch(session, first_batch, kMaxBatchBytes, &batch.docs, &exhausted));
  }
  batch.post_batch_resume_token = cursor->post_batch_resume_token();
  if (!exhausted) {
    batch.cursor_id = cursors_->Register(batch.ns, std::unique_ptr<query::BatchSource>(std::move(cursor)));
  }
  return batch;
}

}  // namespace tigerdoc::engine
