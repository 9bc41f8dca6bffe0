#include "engine/agg/stages/lookup_util.h"

namespace tigerdoc::agg {

Status RequireResolver(const ExpressionContext& ctx, const char* stage) {
  if (ctx.resolver == nullptr) {
    return Error(static_cast<int>(ErrorCode::kNotImplemented),
                 std::string(stage) + " needs access to other collections, which this context does not provide");
  }
  return Status::OK();
}

StatusWith<std::vector<bson::BsonDoc>> ReadAll(const ExpressionContext& ctx, const std::string& coll,
                                               const bson_t* filter) {
  ASSIGN_OR_RETURN(std::unique_ptr<DocumentSource> src, ctx.resolver->Open(ctx.db, coll, filter));
  std::vector<bson::BsonDoc> out;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, src->Next());
    if (!doc) return out;
    out.push_back(std::move(*doc));
  }
}

bson::BsonDoc InFilter(const std::string& path, const std::vector<Value>& values) {
  bson::BsonDoc filter;
  bson_t cond, arr;
  bson_append_document_begin(filter.mutable_get(), path.data(), static_cast<int>(path.size()), &cond);
  bson_append_array_begin(&cond, "$in", 3, &arr);
  for (size_t i = 0; i < values.size(); ++i) {
    std::string key = std::to_string(i);
    if (values[i].missing()) {
      bson_append_null(&arr, key.c_str(), -1);
    } else {
      values[i].AppendTo(&arr, key);
    }
  }
  bson_append_array_end(&cond, &arr);
  bson_append_document_end(filter.mutable_get(), &cond);
  return filter;
}

}  // namespace tigerdoc::agg
