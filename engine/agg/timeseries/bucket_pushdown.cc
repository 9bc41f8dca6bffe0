// Bucket pruning (contract in the header).

#include "engine/agg/timeseries/bucket_pushdown.h"

#include <set>
#include <string>
#include <string_view>

#include "engine/agg/timeseries/unpack_spec.h"

namespace tigerdoc::agg {
namespace {

bool StartsWithPath(std::string_view key, const std::string& field) {
  return key == field || (key.size() > field.size() && key.substr(0, field.size()) == field &&
                          key[field.size()] == '.');
}

void AppendRenamed(bson_t* out, std::string_view key, const std::string& from,
                   const std::string& to, const bson_iter_t* value) {
  const std::string renamed = to + std::string(key.substr(from.size()));
  bson_append_iter(out, renamed.c_str(), -1, value);
}

// Time bounds of `value` (a date or an operator document of dates) as
// predicates on control.min / control.max.
void AppendTimeBounds(bson_t* out, const std::string& time_field, const bson_iter_t* value) {
  const std::string min = "control.min." + time_field;
  const std::string max = "control.max." + time_field;
  auto append = [out](const std::string& path, const char* op, const bson_iter_t* date) {
    bson_t cond;
    bson_append_document_begin(out, path.c_str(), -1, &cond);
    bson_append_iter(&cond, op, -1, date);
    bson_append_document_end(out, &cond);
  };
  if (BSON_ITER_HOLDS_DATE_TIME(value)) {
    append(max, "$gte", value);
    append(min, "$lte", value);
    return;
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) return;
  bson_iter_t op;
  if (!bson_iter_recurse(value, &op)) return;
  while (bson_iter_next(&op)) {
    if (!BSON_ITER_HOLDS_DATE_TIME(&op)) continue;
    const std::string_view name = bson_iter_key(&op);
    if (name == "$gte" || name == "$gt") {
      append(max, name == "$gte" ? "$gte" : "$gt", &op);
    } else if (name == "$lte" || name == "$lt") {
      append(min, name == "$lte" ? "$lte" : "$lt", &op);
    } else if (name == "$eq") {
      append(max, "$gte", &op);
      append(min, "$lte", &op);
    }
  }
}

void AddConjunct(bson_t* out, const UnpackSpec& spec, bool view, const bson_iter_t* it) {
  const std::string_view key = bson_iter_key(it);
  if (spec.meta_field && StartsWithPath(key, *spec.meta_field)) {
    AppendRenamed(out, key, *spec.meta_field, "meta", it);
  } else if (!view && key == spec.time_field) {
    AppendTimeBounds(out, spec.time_field, it);
  } else if (view && key == "bucketDate") {
    const std::string path = "control.min." + spec.time_field;
    bson_append_iter(out, path.c_str(), -1, it);
  } else if (view && key == "_id") {
    bson_append_iter(out, "_id", 3, it);
  }
}

// The bucket-level filter of `filter`; empty when nothing applies.
bson::BsonDoc BucketFilter(const bson_t* filter, const UnpackSpec& spec, bool view) {
  bson::BsonDoc conjuncts;
  bson_t* out = conjuncts.mutable_get();
  bson_iter_t it;
  bson_iter_init(&it, filter);
  while (bson_iter_next(&it)) {
    if (std::string_view(bson_iter_key(&it)) == "$and" && BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_iter_t clause;
      bson_iter_recurse(&it, &clause);
      while (bson_iter_next(&clause)) {
        bson_iter_t field;
        if (!BSON_ITER_HOLDS_DOCUMENT(&clause) || !bson_iter_recurse(&clause, &field)) continue;
        while (bson_iter_next(&field)) AddConjunct(out, spec, view, &field);
      }
    } else if (bson_iter_key(&it)[0] != '$') {
      AddConjunct(out, spec, view, &it);
    }
  }
  // Several conditions on one path stay separate conjuncts: an $and of
  // one-field documents.
  bson::BsonDoc result;
  if (conjuncts.empty()) return result;
  std::set<std::string_view> keys;
  bool unique = true;
  bson_iter_init(&it, conjuncts.get());
  while (bson_iter_next(&it)) unique = keys.insert(bson_iter_key(&it)).second && unique;
  if (unique) return conjuncts;
  bson_t clauses;
  bson_append_array_begin(result.mutable_get(), "$and", 4, &clauses);
  uint32_t i = 0;
  bson_iter_init(&it, conjuncts.get());
  while (bson_iter_next(&it)) {
    bson_t one;
    bson_append_document_begin(&clauses, std::to_string(i++).c_str(), -1, &one);
    bson_append_iter(&one, bson_iter_key(&it), -1, &it);
    bson_append_document_end(&clauses, &one);
  }
  bson_append_array_end(result.mutable_get(), &clauses);
  return result;
}

}  // namespace

bson::BsonDoc PushDownBucketFilters(const bson_t* pipeline) {
  bson_iter_t it;
  bson_iter_t first, second;
  bool has_first = false, has_second = false;
  bson_iter_init(&it, pipeline);
  if (bson_iter_next(&it) && BSON_ITER_HOLDS_DOCUMENT(&it)) {
    first = it;
    has_first = true;
    if (bson_iter_next(&it) && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      second = it;
      has_second = true;
    }
  }
  if (!has_first || !has_second) return bson::BsonDoc::CopyOf(pipeline);
  bson_iter_t stage, match;
  if (!bson_iter_recurse(&first, &stage) || !bson_iter_next(&stage) ||
      !bson_iter_recurse(&second, &match) || !bson_iter_next(&match) ||
      std::string_view(bson_iter_key(&match)) != "$match" || !BSON_ITER_HOLDS_DOCUMENT(&match)) {
    return bson::BsonDoc::CopyOf(pipeline);
  }
  const std::string_view name = bson_iter_key(&stage);
  const bool view = name == "$_internalBucketView";
  if (name != "$_internalUnpackBucket" && !view) return bson::BsonDoc::CopyOf(pipeline);
  StatusWith<UnpackSpec> spec = UnpackSpec::Parse(name, &stage, view);
  if (!spec.ok()) return bson::BsonDoc::CopyOf(pipeline);
  bson_t filter = bson::SubDocumentView(&match);
  bson::BsonDoc bucket_filter = BucketFilter(&filter, spec.value(), view);
  if (bucket_filter.empty()) return bson::BsonDoc::CopyOf(pipeline);
  bson::BsonDoc out;
  bson_t pushed;
  bson_append_document_begin(out.mutable_get(), "0", 1, &pushed);
  BSON_APPEND_DOCUMENT(&pushed, "$match", bucket_filter.get());
  bson_append_document_end(out.mutable_get(), &pushed);
  uint32_t index = 1;
  bson_iter_init(&it, pipeline);
  while (bson_iter_next(&it)) {
    bson_append_iter(out.mutable_get(), std::to_string(index++).c_str(), -1, &it);
  }
  return out;
}

}  // namespace tigerdoc::agg
