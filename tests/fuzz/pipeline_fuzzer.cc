// libFuzzer target: aggregation pipelines (engine/agg), parsed and run as
// Engine::Aggregate does.
// Input (fuzz_input.h): the pipeline (an array, or an array-like
// document), then the input documents. Other collections ($lookup,
// $graphLookup, $unionWith) read the same input documents through an
// in-memory resolver; $out and $merge are refused by it (its default write
// methods), as by a read-only engine.
// Properties: no crash, leak or hang; a run either ends or fails with a
// Status; output documents are well framed (fuzz::WellFramed). Output is
// drained up to a bound, as a cursor's batches would.
// Seeds: corpus/pipeline_fuzzer (make_corpus.py).

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "engine/agg/pipeline.h"
#include "engine/agg/query_expressions.h"
#include "engine/query/matcher/matcher.h"
#include "tests/fuzz/fuzz_input.h"

using namespace tigerdoc;

namespace {

// Every collection holds the fuzz input's documents.
class InputResolver : public agg::CollectionResolver {
 public:
  explicit InputResolver(const fuzz::FuzzInput* input) : input_(input) {}

  StatusWith<std::unique_ptr<agg::DocumentSource>> Open(std::string_view, std::string_view,
                                                        const bson_t* filter) override {
    ASSIGN_OR_RETURN(auto matcher, query::Matcher::Parse(filter));
    std::vector<bson::BsonDoc> docs;
    for (const bson::BsonDoc* doc : input_->Targets()) {
      if (matcher->Matches(doc->get())) docs.push_back(doc->Copy());
    }
    return std::unique_ptr<agg::DocumentSource>(
        std::make_unique<agg::VectorDocumentSource>(std::move(docs)));
  }

 private:
  const fuzz::FuzzInput* input_;
};

// More than a few batches of output means an input the fuzzer should not
// spend its time on (a $densify or $range fan-out is bounded elsewhere).
constexpr int kMaxOutputDocs = 10000;

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
  InputResolver resolver(&input);
  agg::ExpressionContext ctx;
  ctx.now_millis = 1700000000000;
  ctx.db = "db";
  ctx.resolver = &resolver;
  ctx.random_seed = 42;  // reproducible $sample / $rand
  ctx.source_db = "db";
  ctx.source_coll = "c";
  // Spilling would write files; the memory limit errors are what we test.
  ctx.allow_disk_use = false;
  ctx.max_memory_bytes = 16 * 1024 * 1024;

  auto pipeline = agg::Pipeline::Parse(input.spec().get(), ctx);
  if (!pipeline.ok()) return 0;
  (void)pipeline.value().leading_match();
  auto stage =
      pipeline.value().Run(std::make_unique<agg::VectorDocumentSource>(input.TargetCopies()));
  if (!stage.ok()) return 0;
  for (int i = 0; i < kMaxOutputDocs; ++i) {
    auto next = stage.value()->Next();
    if (!next.ok() || !next.value()) break;
    if (!fuzz::WellFramed(*next.value())) std::abort();
  }
  return 0;
}
