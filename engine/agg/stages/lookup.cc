// $lookup, both forms:
//   {from, localField, foreignField, as}      equality: foreign documents
//       whose foreignField matches the local value (query semantics: an
//       array local value matches any element; missing matches null)
//   {from, let, pipeline, as}                 sub-pipeline run per input
//       document with the `let` variables bound ($$name); may be combined
//       with localField/foreignField (the equality filters the foreign side
//       first). Without `from`, the pipeline must start with $documents.
// The foreign collection is read through ExpressionContext::resolver.

#include "engine/agg/pipeline.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/lookup_util.h"
#include "engine/agg/stages/writer_util.h"

namespace tigerdoc::agg {
namespace {

// What one $lookup stage examined in the foreign collection, for
// explain's executionStats (MongoDB's totalDocsExamined / totalKeysExamined
// of a $lookup stage).
struct LookupStats {
  int64_t docs_examined = 0;
  int64_t keys_examined = 0;
};

// A foreign scan whose counts are added to the stage's when it is done.
class CountedSource : public DocumentSource {
 public:
  CountedSource(std::unique_ptr<DocumentSource> inner, LookupStats* stats)
      : inner_(std::move(inner)), stats_(stats) {}
  ~CountedSource() override {
    stats_->docs_examined += inner_->docs_examined();
    stats_->keys_examined += inner_->keys_examined();
  }
  StatusWith<std::optional<bson::BsonDoc>> Next() override { return inner_->Next(); }

 private:
  std::unique_ptr<DocumentSource> inner_;
  LookupStats* stats_;
};

// The $lookup stage: the per-document lookups and their counts.
class LookupStage : public Stage {
 public:
  LookupStage(StagePtr inner, std::shared_ptr<LookupStats> stats)
      : inner_(std::move(inner)), stats_(std::move(stats)) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override { return inner_->Next(); }
  void AppendExplainStats(bson_t* out) const override {
    BSON_APPEND_INT64(out, "totalDocsExamined", stats_->docs_examined);
    BSON_APPEND_INT64(out, "totalKeysExamined", stats_->keys_examined);
  }

 private:
  StagePtr inner_;
  std::shared_ptr<LookupStats> stats_;
};

struct LookupSpec {
  std::string from;
  std::string local_field, foreign_field;
  std::vector<std::string> as;
  std::vector<std::pair<std::string, std::shared_ptr<Expression>>> let;
  std::optional<bson::BsonDoc> pipeline;
};

StatusWith<Value> LookupOne(const LookupSpec& spec, const ExpressionContext& ctx, Variables* vars,
                            const Value& doc, LookupStats* stats) {
  std::optional<bson::BsonDoc> filter;
  if (!spec.local_field.empty()) {
    Value local = GetPath(doc, SplitPath(spec.local_field));
    std::vector<Value> values;
    if (local.is_array()) {
      values = local.Elements();
      if (values.empty()) values.push_back(Value::Undefined());
    } else {
      values.push_back(local.missing() ? Value::Null() : local);
    }
    filter = InFilter(spec.foreign_field, values);
  }
  std::vector<Value> matches;
  if (!spec.pipeline) {
    ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> opened,
                     ctx.resolver->Open(ctx.db, spec.from, filter->get()));
    CountedSource src(std::move(opened), stats);
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> d, src.Next());
      if (!d) break;
      matches.push_back(Value::Document(*d));
    }
  } else {
    ExpressionContext sub = ctx;
    for (const auto& [name, expr] : spec.let) {
      ASSIGN_OR_RETURN(Value v, expr->Evaluate(vars));
      sub.variables.emplace_back(name, std::move(v));
    }
    ASSIGN_OR_RETURN(Pipeline p, Pipeline::Parse(spec.pipeline->get(), sub));
    if (p.leads_with_text()) {
      // $text needs the collection scan of a top-level pipeline.
      return Status(ErrorCode::kNotImplemented, "$text in a sub-pipeline is not supported by tigerdoc");
    }
    std::unique_ptr<DocumentSource> src;
    if (!spec.from.empty()) {
      // The equality on foreignField, else the sub-pipeline's leading
      // $match, narrows the scan (indexes); the stages still run.
      bson::BsonDoc empty;
      const bson_t* scan_filter = filter ? filter->get() : p.leading_match();
      ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> opened,
                       ctx.resolver->Open(ctx.db, spec.from, scan_filter ? scan_filter : empty.get()));
      src = std::make_unique<CountedSource>(std::move(opened), stats);
    }
    ASSIGN_OR_RETURN(auto docs, RunToVector(p, std::move(src)));
    for (auto& d : docs) matches.push_back(Value::Document(d));
  }
  return SetNestedField(doc, spec.as, 0, Value::Array(matches));
}

}  // namespace

StatusWith<StageSpecPtr> ParseLookupStage(const bson_iter_t* spec_it, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec_it)) {
    return Error(9, "the $lookup specification must be an Object, but found " +
                        TypeNameOf(bson_iter_type(spec_it)));
  }
  bson_t doc = bson::SubDocumentView(spec_it);
  auto spec = std::make_shared<LookupSpec>();
  std::string as;
  bool have_from = false;
  ParseContext pctx(&ctx);
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "let") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Error(9, "$lookup argument 'let' must be an object, is type " + TypeNameOf(bson_iter_type(&it)));
      }
      bson_t let = bson::SubDocumentView(&it);
      bson_iter_t v;
      bson_iter_init(&v, &let);
      while (bson_iter_next(&v)) {
        std::string name = bson_iter_key(&v);
        RETURN_IF_ERROR(ValidateUserVariableName(name));
        ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&v, &pctx));
        spec->let.emplace_back(name, std::shared_ptr<Expression>(std::move(e)));
      }
      continue;
    }
    if (key == "pipeline") {
      if (!BSON_ITER_HOLDS_ARRAY(&it)) {
        return Error(9, "$lookup argument 'pipeline' must be an array, is type " + TypeNameOf(bson_iter_type(&it)));
      }
      bson_t p = bson::SubDocumentView(&it);
      spec->pipeline = bson::BsonDoc::CopyOf(&p);
      continue;
    }
    if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return Error(9, "$lookup argument '" + key + ": " + Value(&it).ToString() + "' must be a string, is type " +
                          TypeNameOf(bson_iter_type(&it)));
    }
    std::string value = IterString(&it);
    if (key == "from") {
      spec->from = value;
      have_from = true;
    } else if (key == "as") {
      as = value;
    } else if (key == "localField") {
      spec->local_field = value;
    } else if (key == "foreignField") {
      spec->foreign_field = value;
    } else {
      return Error(9, "unknown argument to $lookup: " + key);
    }
  }
  if (as.empty()) return Error(9, "must specify 'as' field for a $lookup");
  RETURN_IF_ERROR(ValidateFieldPath(as));
  spec->as = SplitPath(as);
  if (spec->local_field.empty() != spec->foreign_field.empty()) {
    return Error(9, "$lookup requires both or neither of 'localField' and 'foreignField' to be specified");
  }
  // Both are FieldPaths in MongoDB (15998, 16410, 16411 ...).
  if (!spec->local_field.empty()) {
    RETURN_IF_ERROR(ValidateFieldPath(spec->local_field));
    RETURN_IF_ERROR(ValidateFieldPath(spec->foreign_field));
  }
  if (!spec->pipeline) {
    if (spec->local_field.empty()) {
      return Error(9, "$lookup requires either 'pipeline' or both 'localField' and 'foreignField' to be specified");
    }
    if (!spec->let.empty()) return Error(9, "$lookup with 'let' must also specify 'pipeline'");
  }
  if (!have_from && !spec->pipeline) return Error(9, "must specify 'from' field for a $lookup");
  if (have_from || !spec->local_field.empty()) RETURN_IF_ERROR(RequireResolver(ctx, "$lookup"));
  if (spec->pipeline) {
    // Validate the sub-pipeline once, with the let names defined.
    ExpressionContext check = ctx;
    for (const auto& [name, e] : spec->let) check.variables.emplace_back(name, Value::Null());
    ASSIGN_OR_RETURN(Pipeline p, Pipeline::Parse(spec->pipeline->get(), check));
    if (p.leads_with_text()) {
      // $text needs the collection scan of a top-level pipeline.
      return Status(ErrorCode::kNotImplemented, "$text in a sub-pipeline is not supported by tigerdoc");
    }
    for (size_t i = 0; i < p.size(); ++i) {
      if (IsWriterStage(p.stage(i).name())) {
        return Error(51047, std::string(p.stage(i).name()) + " is not allowed within a $lookup's sub-pipeline");
      }
    }
    if (!have_from && (p.size() == 0 || !p.stage(0).is_source())) {
      return Error(9, "$lookup requires 'from' unless its pipeline starts with $documents");
    }
  }
  return MakeSpec("$lookup", [spec](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    auto stats = std::make_shared<LookupStats>();
    StagePtr map = MakeMapStage(
        std::move(input), c,
        [spec, c, stats](bson::BsonDoc doc, Variables* vars) -> StatusWith<std::optional<bson::BsonDoc>> {
          Value root = Value::Document(doc);
          vars->SetRoot(root);
          ASSIGN_OR_RETURN(Value out, LookupOne(*spec, *c, vars, root, stats.get()));
          return std::optional<bson::BsonDoc>(out.ToDoc());
        });
    return StagePtr(std::make_unique<LookupStage>(std::move(map), std::move(stats)));
  });
}

}  // namespace tigerdoc::agg
