#pragma once
// Internal to stages/: helpers of the stages that read other collections
// through ExpressionContext::resolver ($lookup, $unionWith, $graphLookup).

#include <string>
#include <vector>

#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {

// 238 NotImplemented when no resolver was configured.
Status RequireResolver(const ExpressionContext& ctx, const char* stage);

// Opens `coll` with `filter` and collects every document.
StatusWith<std::vector<bson::BsonDoc>> ReadAll(const ExpressionContext& ctx, const std::string& coll,
                                               const bson_t* filter);

// {path: {$in: values}} (values are appended as an array).
bson::BsonDoc InFilter(const std::string& path, const std::vector<Value>& values);

}  // namespace tigerdoc::agg
