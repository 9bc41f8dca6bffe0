// aggregate with $changeStream, and the change log's parameters.

#include "wire/commands/change_stream_commands.h"

#include <cmath>
#include <string>

#include "engine/changes/change_log.h"
#include "engine/changes/change_stream_options.h"
#include "engine/engine.h"
#include "wire/reply/reply_builder.h"

namespace tigerdoc::wire {
namespace {

constexpr const char* kRetentionMB = "changeLogRetentionMB";
constexpr const char* kRetentionHours = "changeLogRetentionHours";

}  // namespace

bool HasChangeStreamStage(const bson_t* pipeline) {
  bson_iter_t stage;
  bson_iter_init(&stage, pipeline);
  while (bson_iter_next(&stage)) {
    bson_iter_t op;
    if (BSON_ITER_HOLDS_DOCUMENT(&stage) && bson_iter_recurse(&stage, &op) &&
        bson_iter_next(&op) && std::string_view(bson_iter_key(&op)) == "$changeStream") {
      return true;
    }
  }
  return false;
}

StatusWith<bson::BsonDoc> RunChangeStreamAggregate(CommandContext& ctx,
                                                   engine::AggregateParams params) {
  if (ctx.server->repl_set_name.empty()) {
    return Status(static_cast<ErrorCode>(40573),
                  "The $changeStream stage is only supported on replica sets");
  }
  engine::ChangeStreamParams stream;
  stream.db = params.db;
  stream.coll = params.coll;
  stream.batch_size = params.batch_size;
  bson_iter_t stage;
  bson_iter_init(&stage, params.pipeline.get());
  uint32_t index = 0;
  bool first = true;
  while (bson_iter_next(&stage)) {
    bson_iter_t op;
    const bool is_change_stream = BSON_ITER_HOLDS_DOCUMENT(&stage) &&
                                  bson_iter_recurse(&stage, &op) && bson_iter_next(&op) &&
                                  std::string_view(bson_iter_key(&op)) == "$changeStream";
    if (first) {
      if (!is_change_stream) {
        return Status(static_cast<ErrorCode>(40602),
                      "$changeStream is only valid as the first stage in a pipeline");
      }
      if (!BSON_ITER_HOLDS_DOCUMENT(&op)) {
        return Status(static_cast<ErrorCode>(50808),
                      "$changeStream stage expects a document as argument");
      }
      bson_t spec = bson::SubDocumentView(&op);
      stream.spec = bson::BsonDoc::CopyOf(&spec);
      first = false;
      continue;
    }
    std::string key = std::to_string(index++);
    bson_append_iter(stream.pipeline.mutable_get(), key.c_str(), -1, &stage);
  }
  ASSIGN_OR_RETURN(engine::CursorBatch batch, ctx.engine->OpenChangeStream(stream));
  return CursorFields("firstBatch", batch.cursor_id, batch.ns, batch.docs,
                      batch.post_batch_resume_token.get());
}

bool IsChangeLogParameter(std::string_view name) {
  return name == kRetentionMB || name == kRetentionHours;
}

Status SetChangeLogParameter(CommandContext& ctx, const bson_iter_t* value, bson_t* out) {
  engine::ChangeLog& log = ctx.engine->change_log();
  const std::string_view name = bson_iter_key(value);
  if (!BSON_ITER_HOLDS_NUMBER(value)) {
    return Status(ErrorCode::kBadValue, std::string(name) + " must be a number");
  }
  const double given = bson_iter_as_double(value);
  if (name == kRetentionMB) {
    if (!(given >= 1) || given > 1e9 || given != std::floor(given)) {
      return Status(ErrorCode::kBadValue, std::string(kRetentionMB) +
                                              " must be a whole number between 1 and 1000000000");
    }
    BSON_APPEND_INT64(out, "was", log.retention_bytes() / (1024 * 1024));
    log.SetRetention(static_cast<int64_t>(given) * 1024 * 1024, log.retention_seconds());
  } else {
    if (!(given > 0) || given > 1e6) {
      return Status(ErrorCode::kBadValue,
                    std::string(kRetentionHours) + " must be a number above 0 and at most 1000000");
    }
    BSON_APPEND_DOUBLE(out, "was", log.retention_seconds() / 3600);
    log.SetRetention(log.retention_bytes(), given * 3600);
  }
  return Status::OK();
}

}  // namespace tigerdoc::wire
