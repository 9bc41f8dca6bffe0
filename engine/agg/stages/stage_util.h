#pragma once
// Helpers shared by the stage implementations in stages/.
//
// Thread-safety: as Stage.

#include <bson/bson.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/agg/expressions/expression.h"
#include "engine/agg/stage.h"
#include "engine/agg/value.h"

namespace tigerdoc::agg {

// A streaming stage applying `fn` to each input document; fn returns the
// output document, or nullopt to drop the input.
using DocFn = std::function<StatusWith<std::optional<bson::BsonDoc>>(bson::BsonDoc doc,
                                                                     Variables* vars)>;
StagePtr MakeMapStage(StagePtr input, const ExpressionContext* ctx, DocFn fn);

// A stage returning precomputed documents (blocking stages build these).
StagePtr MakeVectorStage(std::vector<bson::BsonDoc> docs);

// A stage that computes all its output with `fn` on the first Next().
using BlockingFn = std::function<StatusWith<std::vector<bson::BsonDoc>>()>;
StagePtr MakeBlockingStage(BlockingFn fn);

// A StageSpec whose Build wraps a builder function.
using BuildFn = std::function<StatusWith<StagePtr>(StagePtr input, const ExpressionContext* ctx)>;
StageSpecPtr MakeSpec(std::string name, BuildFn build, bool is_source = false);

bson::BsonDoc ToDoc(const Value& document);

// Value at a dotted path without array traversal (Document::getNestedField):
// missing when any step is not a document.
Value GetNestedField(const Value& doc, const std::vector<std::string>& path);
// Returns `doc` with the dotted path set to `v` (creating or replacing
// intermediate documents; a missing `v` removes the field).
Value SetNestedField(const Value& doc, const std::vector<std::string>& path, size_t i,
                     const Value& v);

// Splits "a.b.c".
std::vector<std::string> SplitPath(std::string_view dotted);

// The string `it` holds, whole: NUL bytes included, so that a path holding
// one reaches ValidateFieldPath (16411) instead of being cut short there.
std::string IterString(const bson_iter_t* it);

// Validates a field path given to a stage (no '$' prefix, no empty parts):
// 40352 empty, 15998 empty component, 16410 '$' prefix, 40353 trailing '.'.
Status ValidateFieldPath(std::string_view path);

}  // namespace tigerdoc::agg
