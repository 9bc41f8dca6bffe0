// $graphLookup: {from, startWith, connectFromField, connectToField, as,
// maxDepth, depthField, restrictSearchWithMatch}: a breadth-first search of
// `from`, starting with the startWith values matched against
// connectToField, following connectFromField; each document is visited
// once (by _id). `as` gets the visited documents, each with depthField set
// to its depth when requested.

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/lookup_util.h"
#include <set>

#include "engine/query/matcher/matcher.h"

namespace tigerdoc::agg {
namespace {

struct GraphSpec {
  std::string from, connect_from, connect_to;
  std::vector<std::string> as, depth_field;
  std::shared_ptr<Expression> start_with;
  int64_t max_depth = -1;
  std::optional<bson::BsonDoc> restrict;
};

void AddValues(const Value& v, std::vector<Value>* out) {
  if (v.is_array()) {
    for (Value& e : v.Elements()) out->push_back(std::move(e));
  } else {
    out->push_back(v.missing() ? Value::Null() : v);
  }
}

StatusWith<Value> Search(const GraphSpec& spec, const ExpressionContext& ctx, Variables* vars,
                         const Value& doc) {
  ASSIGN_OR_RETURN(Value start, spec.start_with->Evaluate(vars));
  std::vector<Value> frontier;
  AddValues(start, &frontier);
  std::set<std::string> visited;
  std::set<std::string> queried;
  std::vector<Value> results;
  std::unique_ptr<query::Matcher> restrict;
  if (spec.restrict) {
    ASSIGN_OR_RETURN(restrict, query::Matcher::Parse(spec.restrict->get()));
  }
  for (int64_t depth = 0; !frontier.empty() && (spec.max_depth < 0 || depth <= spec.max_depth); ++depth) {
    std::vector<Value> to_query;
    for (Value& v : frontier) {
      if (queried.insert(v.Key()).second) to_query.push_back(std::move(v));
    }
    frontier.clear();
    if (to_query.empty()) break;
    bson::BsonDoc filter = InFilter(spec.connect_to, to_query);
    ASSIGN_OR_RETURN(auto docs, ReadAll(ctx, spec.from, filter.get()));
    for (auto& d : docs) {
      if (restrict && !restrict->Matches(d.get())) continue;
      Value dv = Value::Document(d);
      Value id = GetPath(dv, {"_id"});
      if (!visited.insert(id.Key()).second) continue;
      AddValues(GetPath(dv, SplitPath(spec.connect_from)), &frontier);
      if (!spec.depth_field.empty()) dv = SetNestedField(dv, spec.depth_field, 0, Value::Long(depth));
      results.push_back(std::move(dv));
    }
  }
  return SetNestedField(doc, spec.as, 0, Value::Array(results));
}

}  // namespace

StatusWith<StageSpecPtr> ParseGraphLookupStage(const bson_iter_t* spec_it, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec_it)) {
    return Error(40327, "the $graphLookup stage specification must be an object, but found " +
                            TypeNameOf(bson_iter_type(spec_it)));
  }
  bson_t doc = bson::SubDocumentView(spec_it);
  auto spec = std::make_shared<GraphSpec>();
  std::string as, depth;
  ParseContext pctx(&ctx);
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "startWith") {
      ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, &pctx));
      spec->start_with = std::move(e);
    } else if (key == "maxDepth") {
      Value v(&it);
      if (!v.numeric() || !v.AsInt64Exact(&spec->max_depth)) {
        return Error(40100, "maxDepth must be numeric, found type: " + v.TypeName());
      }
      if (spec->max_depth < 0) return Error(40101, "maxDepth requires a nonnegative argument, found: " + v.ToString());
    } else if (key == "restrictSearchWithMatch") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Error(40185, "restrictSearchWithMatch must be an object, found " + TypeNameOf(bson_iter_type(&it)));
      }
      bson_t r = bson::SubDocumentView(&it);
      ASSIGN_OR_RETURN(auto m, query::Matcher::Parse(&r));
      (void)m;
      spec->restrict = bson::BsonDoc::CopyOf(&r);
    } else if (key == "from" || key == "as" || key == "connectFromField" || key == "connectToField" ||
               key == "depthField") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return Error(40103, "expected string as argument for " + key + ", found: " + Value(&it).ToString());
      }
      std::string v = IterString(&it);
      if (key == "from") spec->from = v;
      if (key == "as") as = v;
      if (key == "connectFromField") spec->connect_from = v;
      if (key == "connectToField") spec->connect_to = v;
      if (key == "depthField") depth = v;
    } else {
      return Error(40104, "Unknown argument to $graphLookup: " + key);
    }
  }
  if (spec->from.empty() || as.empty() || !spec->start_with || spec->connect_from.empty() ||
      spec->connect_to.empty()) {
    return Error(40105, "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified.");
  }
  RETURN_IF_ERROR(ValidateFieldPath(as));
  RETURN_IF_ERROR(ValidateFieldPath(spec->connect_from));
  RETURN_IF_ERROR(ValidateFieldPath(spec->connect_to));
  spec->as = SplitPath(as);
  if (!depth.empty()) {
    RETURN_IF_ERROR(ValidateFieldPath(depth));
    spec->depth_field = SplitPath(depth);
  }
  RETURN_IF_ERROR(RequireResolver(ctx, "$graphLookup"));
  return MakeSpec("$graphLookup", [spec](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeMapStage(std::move(input), c,
                        [spec, c](bson::BsonDoc doc, Variables* vars) -> StatusWith<std::optional<bson::BsonDoc>> {
                          Value root = Value::Document(doc);
                          vars->SetRoot(root);
                          ASSIGN_OR_RETURN(Value out, Search(*spec, *c, vars, root));
                          return std::optional<bson::BsonDoc>(out.ToDoc());
                        });
  });
}

}  // namespace tigerdoc::agg
