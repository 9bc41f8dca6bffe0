#include "engine/agg/stage_registry.h"

#include <algorithm>
#include <iterator>

namespace tigerdoc::agg {
namespace {

struct Entry {
  std::string_view name;
  StageParseFn parse;
};

// THE stage table, alphabetical (binary search). Stages that need the
// catalog itself ($collStats, $indexStats) are the engine's and are not
// listed here; $out and $merge write through the CollectionResolver.
constexpr Entry kStages[] = {
    {"$_internalBucketView", ParseBucketViewStage},
    {"$_internalUnpackBucket", ParseUnpackBucketStage},
    {"$addFields", ParseAddFieldsStage},
    {"$bucket", ParseBucketStage},
    {"$bucketAuto", ParseBucketAutoStage},
    {"$count", ParseCountStage},
    {"$densify", ParseDensifyStage},
    {"$documents", ParseDocumentsStage},
    {"$facet", ParseFacetStage},
    {"$fill", ParseFillStage},
    {"$graphLookup", ParseGraphLookupStage},
    {"$group", ParseGroupStage},
    {"$limit", ParseLimitStage},
    {"$lookup", ParseLookupStage},
    {"$match", ParseMatchStage},
    {"$merge", ParseMergeStage},
    {"$out", ParseOutStage},
    {"$project", ParseProjectStage},
    {"$redact", ParseRedactStage},
    {"$replaceRoot", ParseReplaceRootStage},
    {"$replaceWith", ParseReplaceWithStage},
    {"$sample", ParseSampleStage},
    {"$set", ParseSetStage},
    {"$setWindowFields", ParseSetWindowFieldsStage},
    {"$skip", ParseSkipStage},
    {"$sort", ParseSortStage},
    {"$sortByCount", ParseSortByCountStage},
    {"$unionWith", ParseUnionWithStage},
    {"$unset", ParseUnsetStage},
    {"$unwind", ParseUnwindStage},
};

}  // namespace

StageParseFn FindStage(std::string_view name) {
  auto it = std::lower_bound(std::begin(kStages), std::end(kStages), name,
                             [](const Entry& e, std::string_view n) { return e.name < n; });
  if (it == std::end(kStages) || it->name != name) return nullptr;
  return it->parse;
}

std::vector<std::string_view> StageNames() {
  std::vector<std::string_view> out;
  for (const Entry& e : kStages) out.push_back(e.name);
  return out;
}

}  // namespace tigerdoc::agg
