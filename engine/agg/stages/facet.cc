// $facet: {name: [pipeline], ...}: runs every sub-pipeline over the whole
// input and outputs one document {name: [results], ...}.

#include "engine/agg/pipeline.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

StatusWith<StageSpecPtr> ParseFacetStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(15955, "the $facet specification must be a non-empty object, but found: " +
                            TypeNameOf(bson_iter_type(spec)));
  }
  bson_t doc = bson::SubDocumentView(spec);
  if (bson_empty(&doc)) return Error(40169, "the $facet specification must be a non-empty object");
  auto facets = std::make_shared<std::vector<std::pair<std::string, Pipeline>>>();
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  while (bson_iter_next(&it)) {
    std::string name = bson_iter_key(&it);
    RETURN_IF_ERROR(ValidateFieldPath(name));
    if (!BSON_ITER_HOLDS_ARRAY(&it)) {
      return Error(40170, "arguments to $facet must be arrays, " + name + " is type " +
                              TypeNameOf(bson_iter_type(&it)));
    }
    bson_t arr = bson::SubDocumentView(&it);
    ASSIGN_OR_RETURN(Pipeline p, Pipeline::Parse(&arr, ctx));
    if (p.leads_with_text()) {
      // $text needs the collection scan of a top-level pipeline.
      return Status(ErrorCode::kNotImplemented, "$text in a sub-pipeline is not supported by tigerdoc");
    }
    for (size_t i = 0; i < p.size(); ++i) {
      std::string_view sn = p.stage(i).name();
      if (sn == "$facet" || sn == "$out" || sn == "$merge" || sn == "$documents") {
        return Error(40600, std::string(sn) + " is not allowed to be used within a $facet stage");
      }
    }
    facets->emplace_back(name, std::move(p));
  }
  return MakeSpec("$facet", [facets](StagePtr in, const ExpressionContext*) -> StatusWith<StagePtr> {
    std::shared_ptr<Stage> input = std::move(in);
    return MakeBlockingStage([input, facets]() -> StatusWith<std::vector<bson::BsonDoc>> {
      ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> all, Drain(input.get()));
      std::vector<std::pair<std::string, Value>> fields;
      for (const auto& [name, p] : *facets) {
        std::vector<bson::BsonDoc> copy;
        for (const auto& d : all) copy.push_back(d.Copy());
        ASSIGN_OR_RETURN(auto out, RunToVector(p, std::make_unique<VectorDocumentSource>(std::move(copy))));
        std::vector<Value> vals;
        for (const auto& d : out) vals.push_back(Value::Document(d));
        fields.emplace_back(name, Value::Array(vals));
      }
      std::vector<bson::BsonDoc> result;
      result.push_back(MakeDocument(fields).ToDoc());
      return result;
    });
  });
}

}  // namespace tigerdoc::agg
