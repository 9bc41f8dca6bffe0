// $merge: "coll" or {into, on, let, whenMatched, whenNotMatched}. For each
// input document, finds the target document with equal `on` fields (by
// default _id) and applies the modes:
//
//   whenMatched   replace       the target document becomes the input (its _id kept)
//                 keepExisting  nothing
//                 merge         the input's top-level fields set on the target ($set)
//                 fail          11000 DuplicateKey (the insert is refused)
//                 [pipeline]    the update pipeline run on the target, $$new = input
//   whenNotMatched insert | discard | fail (13113 MergeStageNoMatchingDocument)
//
// Supported pairs are MongoDB's (else 51181): keepExisting and fail only
// with insert. Writes go through the resolver (the engine's write path),
// unordered as MongoDB's $merge batches: a document that cannot be written
// (duplicate key, validation, no match for whenNotMatched: fail) does not
// stop the others; the first such failure is reported once all are done.
// `on` fields other than _id must be exactly the fields of a unique index
// of the target (51183); each input must have them, not null nor an array
// (51132, 51185); an input without _id gets an ObjectId when `on` is _id.
// Produces no documents.
//
// The target may be the aggregated collection (MongoDB 4.4+): then, and
// whenever the pipeline reads other collections, the whole input is read
// (in memory up to the blocking-stage limit, then in a spill file, with or
// without allowDiskUse) before the first write, so every source document
// is merged exactly once, where MongoDB warns that a document whose update
// moves it may be seen again. Otherwise (an archive move into another
// collection) documents are merged as they are read.

#include <algorithm>
#include <set>

#include "engine/agg/document_buffer.h"
#include "engine/agg/pipeline.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/lookup_util.h"
#include "engine/agg/stages/writer_util.h"

namespace tigerdoc::agg {
namespace {

enum class WhenMatched { kReplace, kKeepExisting, kMerge, kFail, kPipeline };
enum class WhenNotMatched { kInsert, kDiscard, kFail };

const char* Name(WhenMatched m) {
  switch (m) {
    case WhenMatched::kReplace: return "replace";
    case WhenMatched::kKeepExisting: return "keepExisting";
    case WhenMatched::kMerge: return "merge";
    case WhenMatched::kFail: return "fail";
    case WhenMatched::kPipeline: return "pipeline";
  }
  return "";
}
const char* Name(WhenNotMatched m) {
  switch (m) {
    case WhenNotMatched::kInsert: return "insert";
    case WhenNotMatched::kDiscard: return "discard";
    case WhenNotMatched::kFail: return "fail";
  }
  return "";
}

struct MergeSpec {
  TargetNamespace target;
  std::vector<std::string> on = {"_id"};
  bool on_is_id = true;  // `on` includes _id
  WhenMatched when_matched = WhenMatched::kMerge;
  WhenNotMatched when_not_matched = WhenNotMatched::kInsert;
  std::optional<bson::BsonDoc> pipeline;  // whenMatched: [...]
  std::vector<std::pair<std::string, std::shared_ptr<Expression>>> let;
};

// Stages allowed in a whenMatched pipeline: those of a pipeline update.
bool AllowedInUpdate(std::string_view stage) {
  static const std::set<std::string_view> kAllowed = {"$addFields", "$set",         "$project",
                                                      "$unset",     "$replaceRoot", "$replaceWith"};
  return kAllowed.count(stage) != 0;
}

class MergeStage : public Stage {
 public:
  MergeStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const MergeSpec> spec)
      : input_(std::move(input)), ctx_(ctx), spec_(std::move(spec)),
        inserts_(ctx->resolver, spec_->target, InsertBatcher::Mode::kUnordered), vars_(ctx) {}

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (done_) return std::optional<bson::BsonDoc>();
    done_ = true;
    // A pipeline that may read the target (the aggregated collection
    // itself, or any collection through $lookup / $unionWith) reads
    // everything first and must not see its own writes (a document moved
    // ahead of an index or shard scan by its update, or a new _id inserted
    // ahead of it, would be processed again: the Halloween problem). Any
    // other pipeline (an archive move into another collection) merges as
    // it reads.
    const bool reads_target = ctx_->reads_other_collections ||
                              (ctx_->source_db == spec_->target.db && ctx_->source_coll == spec_->target.coll);
    if (!reads_target) {
      while (true) {
        ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
        if (!doc) break;
        RETURN_IF_ERROR(MergeOne(std::move(*doc)));
      }
      NoteWrite(inserts_.Flush());
      RETURN_IF_ERROR(first_write_error_);
      return std::optional<bson::BsonDoc>();
    }
    DocumentBuffer input(DocumentBuffer::Options{ctx_->max_memory_bytes, /*spill_allowed=*/true,
                                                 ctx_->temp_dir, Status::OK()});
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) break;
      RETURN_IF_ERROR(input.Add(std::move(*doc)));
    }
    RETURN_IF_ERROR(input.Finish());
    for (size_t i = 0; i < input.size(); ++i) {
      ASSIGN_OR_RETURN(Value doc, input.Get(i));
      RETURN_IF_ERROR(MergeOne(doc.ToDoc()));
    }
    NoteWrite(inserts_.Flush());
    RETURN_IF_ERROR(first_write_error_);
    return std::optional<bson::BsonDoc>();
  }

 private:
  void NoteWrite(Status status) {
    if (!status.ok() && first_write_error_.ok()) first_write_error_ = std::move(status);
  }

  Status MergeOne(bson::BsonDoc doc) {
    Value input = Value::Document(doc);
    // Every inserted document gets its _id here (as MongoDB's $merge does),
    // so a batch retried document by document cannot insert one twice.
    const bool needs_id = spec_->on_is_id || spec_->when_matched == WhenMatched::kFail;
    if (needs_id && GetNestedField(input, {"_id"}).missing()) {
      bson_oid_t oid;
      bson_oid_init(&oid, nullptr);
      std::vector<std::pair<std::string, Value>> fields = {{"_id", Value::Oid(oid)}};
      for (auto& f : input.Fields()) fields.push_back(std::move(f));
      input = MakeDocument(fields);
      doc = input.ToDoc();
    }
    // whenMatched: fail + whenNotMatched: insert is a plain insert: the
    // target's unique index refuses a match with its duplicate key error.
    if (spec_->when_matched == WhenMatched::kFail) {
      NoteWrite(inserts_.Add(std::move(doc)));
      return Status::OK();
    }

    bson::BsonDoc filter;
    for (const std::string& path : spec_->on) {
      Value v = GetNestedField(input, SplitPath(path));
      if (v.is_array()) return Error(51185, "$merge write error: 'on' field '" + path + "' is an array");
      if (v.nullish()) {
        return Error(51132, "$merge write error: 'on' field '" + path +
                                "' cannot be missing, null, undefined or an array");
      }
      bson_t cond;
      bson_append_document_begin(filter.mutable_get(), path.c_str(), -1, &cond);
      v.AppendTo(&cond, "$eq");
      bson_append_document_end(filter.mutable_get(), &cond);
    }
    // Inserts are batched; a lookup must see the ones already made.
    NoteWrite(inserts_.Flush());
    ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> src,
                     ctx_->resolver->Open(spec_->target.db, spec_->target.coll, filter.get()));
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> existing, src->Next());
    src.reset();
    if (!existing) {
      switch (spec_->when_not_matched) {
        case WhenNotMatched::kInsert: NoteWrite(inserts_.Add(std::move(doc))); return Status::OK();
        case WhenNotMatched::kDiscard: return Status::OK();
        case WhenNotMatched::kFail:
          NoteWrite(Error(static_cast<int>(ErrorCode::kMergeStageNoMatchingDocument),
                          "$merge could not find a matching document in the target collection for "
                          "at least one document in the source collection"));
          return Status::OK();
      }
    }
    Value target = Value::Document(*existing);
    Value updated;
    switch (spec_->when_matched) {
      case WhenMatched::kKeepExisting: return Status::OK();
      case WhenMatched::kReplace: updated = input; break;
      case WhenMatched::kMerge: {
        std::vector<std::pair<std::string, Value>> fields = target.Fields();
        for (auto& [name, v] : input.Fields()) {
          // Named capture: clang 14 cannot capture a structured binding.
          auto it = std::find_if(fields.begin(), fields.end(),
                                 [&key = name](const auto& f) { return f.first == key; });
          if (it != fields.end()) {
            it->second = std::move(v);
          } else {
            fields.emplace_back(name, std::move(v));
          }
        }
        updated = MakeDocument(fields);
        break;
      }
      case WhenMatched::kPipeline: {
        ASSIGN_OR_RETURN(updated, RunUpdatePipeline(input, *existing));
        break;
      }
      case WhenMatched::kFail: break;  // handled above
    }
    bson::BsonDoc id;
    GetNestedField(target, {"_id"}).AppendTo(id.mutable_get(), "");
    bson::BsonDoc replacement = updated.ToDoc();
    bool matched = false;
    Status replaced = ctx_->resolver->Replace(spec_->target.db, spec_->target.coll, id.get(),
                                              replacement.get(), &matched);
    if (replaced.code() == ErrorCode::kImmutableField) {
      replaced = replaced.WithContext(
          "$merge failed to update the matching document, did you attempt to modify the _id or "
          "the shard key? :: caused by :: ");
    }
    NoteWrite(std::move(replaced));
    return Status::OK();
  }

  // The whenMatched pipeline over the target document, with $$new bound to
  // the input and the `let` variables evaluated against the input.
  StatusWith<Value> RunUpdatePipeline(const Value& input, const bson::BsonDoc& existing) {
    ExpressionContext sub = *ctx_;
    vars_.SetRoot(input);
    bool have_new = false;
    for (const auto& [name, expr] : spec_->let) {
      ASSIGN_OR_RETURN(Value v, expr->Evaluate(&vars_));
      have_new = have_new || name == "new";
      sub.variables.emplace_back(name, std::move(v));
    }
    if (!have_new) sub.variables.emplace_back("new", input);
    ASSIGN_OR_RETURN(Pipeline p, Pipeline::Parse(spec_->pipeline->get(), sub));
    if (p.leads_with_text()) {
      // $text needs the collection scan of a top-level pipeline.
      return Status(ErrorCode::kNotImplemented, "$text in a sub-pipeline is not supported by tigerdoc");
    }
    std::vector<bson::BsonDoc> one;
    one.push_back(existing.Copy());
    ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> out,
                     RunToVector(p, std::make_unique<VectorDocumentSource>(std::move(one))));
    if (out.size() != 1) {
      return Error(static_cast<int>(ErrorCode::kInvalidOptions),
                   "$merge's whenMatched pipeline must produce exactly one document");
    }
    return Value::Document(out[0]);
  }

  StagePtr input_;
  const ExpressionContext* ctx_;
  std::shared_ptr<const MergeSpec> spec_;
  InsertBatcher inserts_;
  Variables vars_;
  // A write that failed (duplicate key, validation, no match for
  // whenNotMatched: fail) does not stop the stage: as MongoDB's unordered
  // batches, every document that can be written is, and the first failure
  // is the stage's error at the end. Errors in the input itself (its `on`
  // fields, the whenMatched pipeline) stop it at once, as in MongoDB.
  Status first_write_error_ = Status::OK();
  bool done_ = false;
};

bool IsInternalDb(const std::string& db) { return db == "admin" || db == "local" || db == "config"; }

Status ParseOn(const bson_iter_t* it, MergeSpec* spec) {
  spec->on.clear();
  if (BSON_ITER_HOLDS_UTF8(it)) {
    spec->on.emplace_back(bson_iter_utf8(it, nullptr));
  } else if (BSON_ITER_HOLDS_ARRAY(it)) {
    bson_t arr = bson::SubDocumentView(it);
    bson_iter_t e;
    bson_iter_init(&e, &arr);
    while (bson_iter_next(&e)) {
      if (!BSON_ITER_HOLDS_UTF8(&e)) {
        return Error(51134, "$merge 'on' array elements must be strings, but found " +
                                TypeNameOf(bson_iter_type(&e)));
      }
      spec->on.emplace_back(bson_iter_utf8(&e, nullptr));
    }
    if (spec->on.empty()) {
      return Error(51187, "If explicitly specifying $merge 'on', must include at least one field");
    }
  } else {
    return Error(51186, "$merge 'on' field  must be either a string or an array of strings, but found " +
                            TypeNameOf(bson_iter_type(it)));
  }
  std::set<std::string> seen;
  for (const std::string& f : spec->on) {
    RETURN_IF_ERROR(ValidateFieldPath(f));
    if (!seen.insert(f).second) {
      return Error(static_cast<int>(ErrorCode::kBadValue), "Found a duplicate field '" + f + "' in $merge 'on'");
    }
  }
  spec->on_is_id = seen.count("_id") != 0;
  return Status::OK();
}

Status EnumError(const std::string& field, const Value& v) {
  return Error(static_cast<int>(ErrorCode::kBadValue),
               "Enumeration value '" + std::string(v.str()) + "' for field '$merge." + field +
                   "' is not a valid value.");
}

bool SupportedModes(WhenMatched m, WhenNotMatched n) {
  if (m == WhenMatched::kKeepExisting || m == WhenMatched::kFail) return n == WhenNotMatched::kInsert;
  return true;
}

}  // namespace

StatusWith<StageSpecPtr> ParseMergeStage(const bson_iter_t* it, const ExpressionContext& ctx) {
  auto spec = std::make_shared<MergeSpec>();
  bool have_let = false;
  bool bad_new = false;  // let: {new: <anything but "$$ROOT">}
  if (BSON_ITER_HOLDS_UTF8(it)) {
    spec->target = {ctx.db, bson_iter_utf8(it, nullptr)};
  } else if (BSON_ITER_HOLDS_DOCUMENT(it)) {
    bson_t obj = bson::SubDocumentView(it);
    bool have_into = false;
    bson_iter_t f;
    bson_iter_init(&f, &obj);
    while (bson_iter_next(&f)) {
      std::string key = bson_iter_key(&f);
      Value v(&f);
      if (key == "into") {
        have_into = true;
        if (v.is_string()) {
          spec->target = {ctx.db, std::string(v.str())};
        } else if (v.is_document()) {
          bson_t into = bson::SubDocumentView(&f);
          ASSIGN_OR_RETURN(spec->target, ParseDbColl(&into, "$merge.into", ctx.db, false));
        } else {
          return Error(51178, "$merge 'into' field  must be either a string or an object, but found " +
                                  v.TypeName());
        }
      } else if (key == "on") {
        RETURN_IF_ERROR(ParseOn(&f, spec.get()));
      } else if (key == "let") {
        if (!v.is_document()) {
          return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                       "BSON field '$merge.let' is the wrong type '" + v.TypeName() +
                           "', expected type 'object'");
        }
        have_let = true;
        bson_t let = bson::SubDocumentView(&f);
        ParseContext pctx(&ctx);
        bson_iter_t l;
        bson_iter_init(&l, &let);
        while (bson_iter_next(&l)) {
          std::string name = bson_iter_key(&l);
          if (name == "new") {
            Value nv(&l);
            bad_new = !(nv.is_string() && nv.str() == "$$ROOT");
          } else {
            RETURN_IF_ERROR(ValidateUserVariableName(name));
          }
          ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&l, &pctx));
          spec->let.emplace_back(name, std::shared_ptr<Expression>(std::move(e)));
        }
      } else if (key == "whenMatched") {
        if (v.is_string()) {
          std::string_view s = v.str();
          if (s == "replace") spec->when_matched = WhenMatched::kReplace;
          else if (s == "keepExisting") spec->when_matched = WhenMatched::kKeepExisting;
          else if (s == "merge") spec->when_matched = WhenMatched::kMerge;
          else if (s == "fail") spec->when_matched = WhenMatched::kFail;
          else return EnumError(key, v);
        } else if (v.is_array()) {
          spec->when_matched = WhenMatched::kPipeline;
          bson_t arr = bson::SubDocumentView(&f);
          spec->pipeline = bson::BsonDoc::CopyOf(&arr);
        } else {
          return Error(51191, "$merge 'whenMatched' field  must be either a string or an array, but found " +
                                  v.TypeName());
        }
      } else if (key == "whenNotMatched") {
        if (!v.is_string()) {
          return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                       "BSON field '$merge.whenNotMatched' is the wrong type '" + v.TypeName() +
                           "', expected type 'string'");
        }
        std::string_view s = v.str();
        if (s == "insert") spec->when_not_matched = WhenNotMatched::kInsert;
        else if (s == "discard") spec->when_not_matched = WhenNotMatched::kDiscard;
        else if (s == "fail") spec->when_not_matched = WhenNotMatched::kFail;
        else return EnumError(key, v);
      } else if (key == "targetCollectionVersion") {
        // Internal to sharded MongoDB (mongos -> shards); meaningless here.
      } else {
        return Error(40415, "BSON field '$merge." + key + "' is an unknown field.");
      }
    }
    if (!have_into) return Error(40414, "BSON field '$merge.into' is missing but a required field");
  } else {
    return Error(51182, "$merge only supports a string or object argument, not " +
                            TypeNameOf(bson_iter_type(it)));
  }
  if (!SupportedModes(spec->when_matched, spec->when_not_matched)) {
    return Error(51181, std::string("Combination of $merge modes 'whenMatched: ") + Name(spec->when_matched) +
                            "' and 'whenNotMatched: " + Name(spec->when_not_matched) + "' is not supported");
  }
  RETURN_IF_ERROR(ValidateTargetName(spec->target, "$merge", ": '"));
  if (spec->target.coll.rfind("system.", 0) == 0) {
    return Error(31319, "Cannot $merge to special collection: " + spec->target.coll);
  }
  if (IsInternalDb(spec->target.db)) {
    return Error(31320, "Cannot $merge to internal database: " + spec->target.db);
  }
  if (spec->when_matched == WhenMatched::kPipeline) {
    if (bad_new) {
      return Error(51273, "'let' may not define a value for the reserved 'new' variable other than '$$ROOT'");
    }
  } else if (have_let) {
    return Error(51199, std::string("Cannot use 'let' variables with 'whenMatched: ") +
                            Name(spec->when_matched) + "' mode");
  }
  RETURN_IF_ERROR(RequireResolver(ctx, "$merge"));
  ASSIGN_OR_RETURN(WriteTarget info, ctx.resolver->DescribeTarget(spec->target.db, spec->target.coll));
  if (info.is_view) {
    return Error(static_cast<int>(ErrorCode::kCommandNotSupportedOnView),
                 "Namespace " + spec->target.ns() + " is a view, not a collection");
  }
  if (!(spec->on.size() == 1 && spec->on_is_id)) {
    std::vector<std::string> want = spec->on;
    std::sort(want.begin(), want.end());
    bool supported = false;
    for (std::vector<std::string> key : info.unique_keys) {
      std::sort(key.begin(), key.end());
      supported = supported || key == want;
    }
    if (!supported) return Error(51183, "Cannot find index to verify that 'on' fields will be unique");
  }
  if (spec->pipeline) {
    // Validate the whenMatched pipeline once, with its variables defined.
    ExpressionContext check = ctx;
    check.variables.emplace_back("new", Value::Null());
    for (const auto& [name, e] : spec->let) check.variables.emplace_back(name, Value::Null());
    ASSIGN_OR_RETURN(Pipeline p, Pipeline::Parse(spec->pipeline->get(), check));
    if (p.leads_with_text()) {
      // $text needs the collection scan of a top-level pipeline.
      return Status(ErrorCode::kNotImplemented, "$text in a sub-pipeline is not supported by tigerdoc");
    }
    for (size_t i = 0; i < p.size(); ++i) {
      if (!AllowedInUpdate(p.stage(i).name())) {
        return Error(static_cast<int>(ErrorCode::kInvalidOptions),
                     std::string(p.stage(i).name()) + " is not allowed to be used within an update");
      }
    }
  }
  std::shared_ptr<const MergeSpec> shared = spec;
  return MakeSpec("$merge", [shared](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return StagePtr(std::make_unique<MergeStage>(std::move(input), c, shared));
  });
}

}  // namespace tigerdoc::agg
