// libFuzzer target: updates (engine/update), as Engine::Update runs them.
// Input (fuzz_input.h): an update statement, then the documents to update.
// The statement is {q: filter, u: update, arrayFilters: [...], c: {...}}
// (u a document: modifiers or a replacement; an array: a pipeline), or,
// without a `u` field, the whole first document is the update and q is {}.
// For each document: match q (with MatchDetails when the update is
// positional), Apply; then the upsert path (BuildUpsertSeed + Apply with
// is_upsert_insert).
// Properties: no crash, leak or hang; an applied update is well framed
// (fuzz::WellFramed).
// Seeds: corpus/update_fuzzer (make_corpus.py).

#include <bson/bson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>

#include "engine/agg/query_expressions.h"
#include "engine/command_expressions.h"
#include "engine/query/matcher/matcher.h"
#include "engine/update/update_driver.h"
#include "tests/fuzz/fuzz_input.h"

using namespace tigerdoc;

namespace {

// The sub-document or array at `key` of `spec`, copied; nullopt when absent
// or of another type. `*is_array` says which it was.
std::optional<bson::BsonDoc> Field(const bson_t* spec, const char* key, bool* is_array = nullptr) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, spec, key)) return std::nullopt;
  if (!BSON_ITER_HOLDS_DOCUMENT(&it) && !BSON_ITER_HOLDS_ARRAY(&it)) return std::nullopt;
  if (is_array != nullptr) *is_array = BSON_ITER_HOLDS_ARRAY(&it);
  bson_t sub = bson::SubDocumentView(&it);
  return bson::BsonDoc::CopyOf(&sub);
}

void CheckValid(const bson::BsonDoc& doc) {
  if (!fuzz::WellFramed(doc.get())) std::abort();
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
  const bson_t* spec = input.spec().get();
  bool is_pipeline = false;
  std::optional<bson::BsonDoc> u = Field(spec, "u", &is_pipeline);
  std::optional<bson::BsonDoc> q = Field(spec, "q");
  std::optional<bson::BsonDoc> array_filters = Field(spec, "arrayFilters");
  std::optional<bson::BsonDoc> constants = Field(spec, "c");
  if (!u) {
    u = input.spec().Copy();
    q.reset();
    array_filters.reset();
    constants.reset();
  }
  if (!q) q = bson::BsonDoc();

  auto expressions = engine::CommandExpressions::Make("db", nullptr);
  if (!expressions.ok()) std::abort();
  auto matcher = query::Matcher::Parse(q->get(), expressions.value().parser.get());
  if (!matcher.ok()) return 0;
  auto driver = engine::ParseUpdateDriver(*u, is_pipeline, array_filters, constants,
                                          expressions.value());
  if (!driver.ok()) return 0;

  for (const bson::BsonDoc* doc : input.Targets()) {
    if (!matcher.value()->Matches(doc->get())) continue;
    std::optional<size_t> positional;
    if (driver.value().is_positional()) {
      query::MatchDetails details;
      matcher.value()->Matches(doc->get(), &details);
      positional = details.elem_match_index();
    }
    auto applied = driver.value().Apply(doc->get(), false, positional);
    if (applied.ok()) CheckValid(applied.value().doc);
  }
  auto seed = update::BuildUpsertSeed(*matcher.value());
  if (seed.ok()) {
    auto inserted = driver.value().Apply(seed.value().get(), true);
    if (inserted.ok()) CheckValid(inserted.value().doc);
  }
  return 0;
}
