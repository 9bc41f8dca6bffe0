// $out: "coll" or {db, coll}. Writes every input document into a temporary
// collection shaped like the target (options, shard key, indexes), then
// renames it over the target in one catalog step, so readers see the old
// target or the new one, never a partial result; on any error the
// temporary collection is dropped and the target is untouched. Produces no
// documents (the aggregate's cursor is empty).
//
// Parse errors as MongoDB: 16990 not a string/object, 40414/40415/14 for the
// object form, 73 invalid namespace, 17385 "Can't $out to special
// collection: system.x", 31321 internal database (admin, local, config),
// 166 a view. 40601 when not last comes from the pipeline.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/lookup_util.h"
#include "engine/agg/stages/writer_util.h"

namespace tigerdoc::agg {
namespace {

class OutStage : public Stage {
 public:
  OutStage(StagePtr input, const ExpressionContext* ctx, TargetNamespace target)
      : input_(std::move(input)), ctx_(ctx), target_(std::move(target)) {}

  ~OutStage() override {
    // Abandoned mid-way (an error, or the cursor was killed): drop the
    // temporary collection; a crash leaves it to the catalog's start-up
    // sweep.
    if (!temp_.empty()) static_cast<void>(ctx_->resolver->DropTemp(target_.db, temp_));
  }

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (done_) return std::optional<bson::BsonDoc>();
    done_ = true;
    CollectionResolver* resolver = ctx_->resolver;
    ASSIGN_OR_RETURN(temp_, resolver->CreateTemp(target_.db, target_.coll));
    InsertBatcher batcher(resolver, TargetNamespace{target_.db, temp_});
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) break;
      RETURN_IF_ERROR(batcher.Add(std::move(*doc)));
    }
    RETURN_IF_ERROR(batcher.Flush());
    // The target may have become a view while we ran.
    ASSIGN_OR_RETURN(WriteTarget info, resolver->DescribeTarget(target_.db, target_.coll));
    if (info.is_view) return ViewError(target_);
    RETURN_IF_ERROR(resolver->ReplaceWithTemp(target_.db, temp_, target_.db, target_.coll));
    temp_.clear();
    return std::optional<bson::BsonDoc>();
  }

  static Status ViewError(const TargetNamespace& target) {
    return Error(static_cast<int>(ErrorCode::kCommandNotSupportedOnView),
                 "Namespace " + target.ns() + " is a view, not a collection");
  }

 private:
  StagePtr input_;
  const ExpressionContext* ctx_;
  TargetNamespace target_;
  std::string temp_;
  bool done_ = false;
};

bool IsInternalDb(const std::string& db) { return db == "admin" || db == "local" || db == "config"; }

}  // namespace

StatusWith<StageSpecPtr> ParseOutStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  TargetNamespace target;
  if (BSON_ITER_HOLDS_UTF8(spec)) {
    target.db = ctx.db;
    target.coll = bson_iter_utf8(spec, nullptr);
  } else if (BSON_ITER_HOLDS_DOCUMENT(spec)) {
    bson_t obj = bson::SubDocumentView(spec);
    bson_iter_t ts;
    if (bson_iter_init_find(&ts, &obj, "timeseries")) {
      return Error(static_cast<int>(ErrorCode::kNotImplemented),
                   "$out to a time-series collection is not supported by tigerdoc");
    }
    ASSIGN_OR_RETURN(target, ParseDbColl(&obj, "$out", ctx.db, /*require_db=*/true));
  } else {
    return Error(16990, "$out only supports a string or object argument, but found " +
                            TypeNameOf(bson_iter_type(spec)));
  }
  RETURN_IF_ERROR(ValidateTargetName(target, "$out", ", "));
  if (target.coll.rfind("system.", 0) == 0) {
    return Error(17385, "Can't $out to special collection: " + target.coll);
  }
  if (IsInternalDb(target.db)) return Error(31321, "Can't $out to internal database: " + target.db);
  RETURN_IF_ERROR(RequireResolver(ctx, "$out"));
  ASSIGN_OR_RETURN(WriteTarget info, ctx.resolver->DescribeTarget(target.db, target.coll));
  if (info.is_view) return OutStage::ViewError(target);
  return MakeSpec("$out", [target](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return StagePtr(std::make_unique<OutStage>(std::move(input), c, target));
  });
}

}  // namespace tigerdoc::agg
