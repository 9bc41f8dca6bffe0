#include "engine/agg/match_pushdown.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tigerdoc::agg {
namespace {

std::string FirstComponent(std::string_view path) {
  return std::string(path.substr(0, path.find('.')));
}

// The top-level fields `filter` tests; false when it has an operator whose
// fields cannot be told ($expr, $where, ...).
bool FieldsOfFilter(const bson_t* filter, std::set<std::string>* fields) {
  bson_iter_t it;
  if (!bson_iter_init(&it, filter)) return false;
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if (key.empty()) return false;
    if (key[0] != '$') {
      fields->insert(FirstComponent(key));
      continue;
    }
    if (key == "$comment") continue;
    if ((key != "$and" && key != "$or" && key != "$nor") || !BSON_ITER_HOLDS_ARRAY(&it)) return false;
    bson_iter_t clause;
    bson_iter_recurse(&it, &clause);
    while (bson_iter_next(&clause)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&clause)) return false;
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&clause, &len, &data);
      bson_t sub;
      if (!bson_init_static(&sub, data, len) || !FieldsOfFilter(&sub, fields)) return false;
    }
  }
  return true;
}

struct Stage {
  std::string name;
  bson::BsonDoc doc;  // {<name>: <spec>}
};

// The top-level fields `stage` writes; false when the stage is not one a
// $match may move past.
bool FieldsWritten(const Stage& stage, std::set<std::string>* fields) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, stage.doc.get(), stage.name.c_str())) return false;
  // A view's own $match stays first: the read's filter follows it (the
  // scan's query is the view's filter, as before).
  if (stage.name == "$match") return false;
  if (stage.name == "$set" || stage.name == "$addFields") {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return false;
    bson_iter_t field;
    bson_iter_recurse(&it, &field);
    while (bson_iter_next(&field)) fields->insert(FirstComponent(bson_iter_key(&field)));
    return true;
  }
  if (stage.name == "$unset") {
    if (BSON_ITER_HOLDS_UTF8(&it)) {
      fields->insert(FirstComponent(bson_iter_utf8(&it, nullptr)));
      return true;
    }
    if (!BSON_ITER_HOLDS_ARRAY(&it)) return false;
    bson_iter_t name;
    bson_iter_recurse(&it, &name);
    while (bson_iter_next(&name)) {
      if (!BSON_ITER_HOLDS_UTF8(&name)) return false;
      fields->insert(FirstComponent(bson_iter_utf8(&name, nullptr)));
    }
    return true;
  }
  if (stage.name == "$lookup") {
    bson_iter_t as;
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) || !bson_iter_recurse(&it, &as) || !bson_iter_find(&as, "as") ||
        !BSON_ITER_HOLDS_UTF8(&as)) {
      return false;
    }
    fields->insert(FirstComponent(bson_iter_utf8(&as, nullptr)));
    return true;
  }
  return false;
}

void AppendStages(const bson_t* pipeline, std::vector<Stage>* out) {
  bson_iter_t it;
  if (!bson_iter_init(&it, pipeline)) return;
  while (bson_iter_next(&it)) {
    Stage stage;
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      stage.doc = bson::BsonDoc::CopyOf(data, len);
      bson_iter_t first;
      if (bson_iter_init(&first, stage.doc.get()) && bson_iter_next(&first)) {
        stage.name = bson_iter_key(&first);
      }
    } else {
      // Not a stage document: kept as it is for the parser to refuse.
      bson_append_iter(stage.doc.mutable_get(), "", 0, &it);
    }
    out->push_back(std::move(stage));
  }
}

}  // namespace

bson::BsonDoc JoinViewPipeline(const bson_t* view, const bson_t* user) {
  std::vector<Stage> stages;
  AppendStages(view, &stages);
  const size_t view_end = stages.size();
  AppendStages(user, &stages);
  // The user's leading $match stages, one after the other; each stays
  // after the one before it (`floor`).
  size_t floor = 0;
  for (size_t i = view_end; i < stages.size() && stages[i].name == "$match"; ++i) {
    bson_iter_t it;
    std::set<std::string> tested;
    if (!bson_iter_init_find(&it, stages[i].doc.get(), "$match") || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
      break;
    }
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&it, &len, &data);
    bson_t filter;
    if (!bson_init_static(&filter, data, len) || !FieldsOfFilter(&filter, &tested)) break;
    size_t to = i;
    while (to > floor) {
      std::set<std::string> written;
      if (!FieldsWritten(stages[to - 1], &written)) break;
      bool overlaps = false;
      for (const std::string& f : tested) overlaps = overlaps || written.count(f) > 0;
      if (overlaps) break;
      --to;
    }
    Stage moved = std::move(stages[i]);
    stages.erase(stages.begin() + static_cast<std::ptrdiff_t>(i));
    stages.insert(stages.begin() + static_cast<std::ptrdiff_t>(to), std::move(moved));
    floor = to + 1;
  }
  bson::BsonDoc out;
  for (size_t i = 0; i < stages.size(); ++i) {
    const std::string key = std::to_string(i);
    if (stages[i].name.empty()) {
      bson_iter_t raw;
      bson_iter_init(&raw, stages[i].doc.get());
      bson_iter_next(&raw);
      bson_append_iter(out.mutable_get(), key.c_str(), -1, &raw);
    } else {
      BSON_APPEND_DOCUMENT(out.mutable_get(), key.c_str(), stages[i].doc.get());
    }
  }
  return out;
}

}  // namespace tigerdoc::agg
