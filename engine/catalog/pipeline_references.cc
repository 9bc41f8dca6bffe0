// Walks a pipeline's stages for the names it reads; see the header.

#include "engine/catalog/pipeline_references.h"

#include <string_view>

namespace tigerdoc::catalog {
namespace {

void CollectFromPipeline(const bson_iter_t* array, std::vector<std::string>* out);

void AppendIfString(const bson_iter_t* it, std::vector<std::string>* out) {
  if (BSON_ITER_HOLDS_UTF8(it)) out->emplace_back(bson_iter_utf8(it, nullptr));
}

// {from: <name>, pipeline: [...], ...} of $lookup; {coll, pipeline} of
// $unionWith (whose name field is `coll`).
void CollectFromSpec(const bson_iter_t* spec, const char* name_field, std::vector<std::string>* out) {
  bson_iter_t field;
  if (!BSON_ITER_HOLDS_DOCUMENT(spec) || !bson_iter_recurse(spec, &field)) return;
  while (bson_iter_next(&field)) {
    std::string_view key = bson_iter_key(&field);
    if (key == name_field) {
      AppendIfString(&field, out);
    } else if (key == "pipeline") {
      CollectFromPipeline(&field, out);
    }
  }
}

void CollectFromStage(const bson_iter_t* stage, std::vector<std::string>* out) {
  bson_iter_t op;
  if (!BSON_ITER_HOLDS_DOCUMENT(stage) || !bson_iter_recurse(stage, &op) || !bson_iter_next(&op)) {
    return;
  }
  std::string_view name = bson_iter_key(&op);
  if (name == "$lookup" || name == "$graphLookup") {
    CollectFromSpec(&op, "from", out);
  } else if (name == "$unionWith") {
    if (BSON_ITER_HOLDS_UTF8(&op)) {
      AppendIfString(&op, out);
    } else {
      CollectFromSpec(&op, "coll", out);
    }
  } else if (name == "$facet") {
    bson_iter_t branch;
    if (!BSON_ITER_HOLDS_DOCUMENT(&op) || !bson_iter_recurse(&op, &branch)) return;
    while (bson_iter_next(&branch)) CollectFromPipeline(&branch, out);
  }
}

void CollectFromPipeline(const bson_iter_t* array, std::vector<std::string>* out) {
  bson_iter_t stage;
  if (!BSON_ITER_HOLDS_ARRAY(array) || !bson_iter_recurse(array, &stage)) return;
  while (bson_iter_next(&stage)) CollectFromStage(&stage, out);
}

}  // namespace

std::vector<std::string> PipelineReferences(const bson_t* pipeline) {
  std::vector<std::string> out;
  bson_iter_t stage;
  if (pipeline == nullptr || !bson_iter_init(&stage, pipeline)) return out;
  while (bson_iter_next(&stage)) CollectFromStage(&stage, &out);
  return out;
}

}  // namespace tigerdoc::catalog
