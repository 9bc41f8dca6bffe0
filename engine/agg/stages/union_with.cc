// $unionWith: "coll" or {coll, pipeline}: all input documents, then the
// documents of `coll` passed through `pipeline`.

#include "engine/agg/pipeline.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/lookup_util.h"
#include "engine/agg/stages/writer_util.h"

namespace tigerdoc::agg {
namespace {

class UnionStage : public Stage {
 public:
  UnionStage(StagePtr input, std::function<StatusWith<StagePtr>()> open_second)
      : input_(std::move(input)), open_second_(std::move(open_second)) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (input_) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (doc) return doc;
      input_.reset();
      ASSIGN_OR_RETURN(second_, open_second_());
    }
    return second_->Next();
  }

 private:
  StagePtr input_;
  std::function<StatusWith<StagePtr>()> open_second_;
  StagePtr second_;
};

}  // namespace

StatusWith<StageSpecPtr> ParseUnionWithStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  std::string coll;
  std::shared_ptr<Pipeline> pipeline;
  if (BSON_ITER_HOLDS_UTF8(spec)) {
    coll = bson_iter_utf8(spec, nullptr);
  } else if (BSON_ITER_HOLDS_DOCUMENT(spec)) {
    bson_t doc = bson::SubDocumentView(spec);
    bson_iter_t it;
    bson_iter_init(&it, &doc);
    while (bson_iter_next(&it)) {
      std::string key = bson_iter_key(&it);
      if (key == "coll") {
        if (!BSON_ITER_HOLDS_UTF8(&it)) {
          return Error(14, "BSON field '$unionWith.coll' is the wrong type '" +
                               TypeNameOf(bson_iter_type(&it)) + "', expected type 'string'");
        }
        coll = bson_iter_utf8(&it, nullptr);
      } else if (key == "pipeline") {
        if (!BSON_ITER_HOLDS_ARRAY(&it)) {
          return Error(14, "BSON field '$unionWith.pipeline' is the wrong type '" +
                               TypeNameOf(bson_iter_type(&it)) + "', expected type 'array'");
        }
        bson_t arr = bson::SubDocumentView(&it);
        ASSIGN_OR_RETURN(Pipeline p, Pipeline::Parse(&arr, ctx));
        if (p.leads_with_text()) {
          // $text needs the collection scan of a top-level pipeline.
          return Status(ErrorCode::kNotImplemented, "$text in a sub-pipeline is not supported by tigerdoc");
        }
        for (size_t i = 0; i < p.size(); ++i) {
          if (IsWriterStage(p.stage(i).name())) {
            return Error(31441, std::string(p.stage(i).name()) + " is not allowed within a $unionWith's sub-pipeline");
          }
        }
        pipeline = std::make_shared<Pipeline>(std::move(p));
      } else {
        return Error(40415, "BSON field '$unionWith." + key + "' is an unknown field.");
      }
    }
  } else {
    return Error(9,
                 "the $unionWith stage specification must be an object or string, but found " +
                     TypeNameOf(bson_iter_type(spec)));
  }
  if (coll.empty() && !(pipeline && pipeline->size() > 0 && pipeline->stage(0).is_source())) {
    return Error(40414, "BSON field '$unionWith.coll' is missing but a required field");
  }
  if (!coll.empty()) RETURN_IF_ERROR(RequireResolver(ctx, "$unionWith"));
  return MakeSpec("$unionWith", [coll, pipeline](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    auto open = [coll, pipeline, c]() -> StatusWith<StagePtr> {
      std::unique_ptr<DocumentSource> src;
      if (!coll.empty()) {
        // The sub-pipeline's leading $match narrows the scan (indexes,
        // shard targeting); the $match still runs.
        bson::BsonDoc empty;
        const bson_t* filter = pipeline ? pipeline->leading_match() : nullptr;
        ASSIGN_OR_RETURN(src, c->resolver->Open(c->db, coll, filter ? filter : empty.get()));
      }
      if (pipeline) return pipeline->Run(std::move(src));
      return MakeSourceStage(std::move(src));
    };
    return StagePtr(std::make_unique<UnionStage>(std::move(input), std::move(open)));
  });
}

}  // namespace tigerdoc::agg
