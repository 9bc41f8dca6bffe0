#pragma once
// THE stage table: stage name -> parse function (stage_registry.cc,
// alphabetical). Each stage's parse function lives in stages/<name>.cc.
//
// Thread-safety: constant data.

#include <bson/bson.h>

#include <string_view>
#include <vector>

#include "engine/agg/expressions/expression.h"
#include "engine/agg/stage.h"

namespace tigerdoc::agg {

// `spec` is positioned on the stage's argument ({$limit: 5} -> on 5).
using StageParseFn = StatusWith<StageSpecPtr> (*)(const bson_iter_t* spec,
                                                  const ExpressionContext& ctx);

// nullptr when unknown.
StageParseFn FindStage(std::string_view name);
std::vector<std::string_view> StageNames();

// Stage parse functions (stages/*.cc).
// Time-series: stages/bucket_view.cc, stages/unpack_bucket.cc.
StatusWith<StageSpecPtr> ParseBucketViewStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseUnpackBucketStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseAddFieldsStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseBucketStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseBucketAutoStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseCountStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseDensifyStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseDocumentsStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseFacetStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseFillStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseGraphLookupStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseGroupStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseLimitStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseLookupStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseMatchStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseMergeStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseOutStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseProjectStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseRedactStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseReplaceRootStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseReplaceWithStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseSampleStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseSetStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseSetWindowFieldsStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseSkipStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseSortStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseSortByCountStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseUnionWithStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseUnsetStage(const bson_iter_t*, const ExpressionContext&);
StatusWith<StageSpecPtr> ParseUnwindStage(const bson_iter_t*, const ExpressionContext&);

}  // namespace tigerdoc::agg
