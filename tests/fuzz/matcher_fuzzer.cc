// libFuzzer target: the query filter language (engine/query/matcher).
// Input (fuzz_input.h): a filter document, then the documents to match.
// Runs what a find, update or delete does with a filter: Matcher::Parse
// with the command's expression parser ($expr), Matches with and without
// MatchDetails (the positional update path), EvaluationError, and the
// equality extraction used for shard targeting and upsert seeds.
// Properties: no crash, leak or hang; both Matches agree.
// Seeds: corpus/matcher_fuzzer (make_corpus.py).

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "engine/agg/query_expressions.h"
#include "engine/command_expressions.h"
#include "engine/query/matcher/matcher.h"
#include "engine/update/update_driver.h"
#include "tests/fuzz/fuzz_input.h"

using namespace tigerdoc;

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
  auto matcher = query::Matcher::Parse(input.spec().get(), expressions.value().parser.get());
  if (!matcher.ok()) return 0;
  const query::Matcher& m = *matcher.value();
  for (const bson::BsonDoc* doc : input.Targets()) {
    const bool matched = m.Matches(doc->get());
    query::MatchDetails details;
    if (m.Matches(doc->get(), &details) != matched) std::abort();
    (void)m.EvaluationError();
  }
  (void)m.EqualityValuesFor("_id");
  (void)m.EqualityValuesFor("a");
  (void)update::BuildUpsertSeed(m);
  return 0;
}
