// libFuzzer target: projections and aggregation expressions evaluated over
// documents -- the $project and $addFields stages (agg::ProjectionTree and
// the expression language, through the stage as a pipeline runs it), and
// find's projection (query::Projection, with computed fields compiled by
// the command's expression parser, and the positional / $elemMatch /
// $slice operators against the filter {}).
// Input (fuzz_input.h): the projection document, then the documents.
// Every input is tried in all three roles; most are errors in some.
// Properties: no crash, leak or hang; results are well framed
// (fuzz::WellFramed).
// Seeds: corpus/projection_fuzzer (make_corpus.py).

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "engine/agg/pipeline.h"
#include "engine/agg/query_expressions.h"
#include "engine/command_expressions.h"
#include "engine/query/projection.h"
#include "tests/fuzz/fuzz_input.h"

using namespace tigerdoc;

namespace {

void CheckValid(const bson_t* doc) {
  if (!fuzz::WellFramed(doc)) std::abort();
}

// Runs [{<stage>: spec}] over the documents.
void RunStage(const char* stage, const fuzz::FuzzInput& input, const agg::ExpressionContext& ctx) {
  bson::BsonDoc pipeline;
  bson_t stage_doc;
  bson_append_document_begin(pipeline.mutable_get(), "0", 1, &stage_doc);
  BSON_APPEND_DOCUMENT(&stage_doc, stage, input.spec().get());
  bson_append_document_end(pipeline.mutable_get(), &stage_doc);
  auto parsed = agg::Pipeline::Parse(pipeline.get(), ctx);
  if (!parsed.ok()) return;
  auto out = agg::RunToVector(parsed.value(),
                              std::make_unique<agg::VectorDocumentSource>(input.TargetCopies()));
  if (!out.ok()) return;
  for (const bson::BsonDoc& doc : out.value()) CheckValid(doc.get());
}

}  // namespace

// As Engine::Open does: filters parsed without a command's parser (index
// filters, $lookup's sub-scans) still compile $expr.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  agg::InstallDefaultQueryExpressionParser();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::FuzzInput input(data, size);
  if (!input.ok()) return 0;
  auto expressions = engine::CommandExpressions::Make("db", nullptr);
  if (!expressions.ok()) std::abort();
  agg::ExpressionContext ctx = expressions.value().ctx;
  ctx.now_millis = 1700000000000;
  ctx.random_seed = 42;

  RunStage("$project", input, ctx);
  RunStage("$addFields", input, ctx);

  const bson::BsonDoc empty_filter;
  auto projection = query::Projection::Parse(input.spec().get(), empty_filter.get(),
                                             expressions.value().parser.get());
  if (!projection.ok()) return 0;
  for (const bson::BsonDoc* doc : input.Targets()) {
    auto projected = projection.value().Apply(doc->get(), nullptr);
    if (projected.ok()) CheckValid(projected.value().get());
  }
  return 0;
}
