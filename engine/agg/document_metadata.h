#pragma once
// Document metadata in the aggregation pipeline: the text score a leading
// {$match: {$text: ...}} gives each document and the sort key a $sort
// gives it, read back by {$meta: "textScore"} / {$meta: "sortKey"}
// (expressions/meta.cc) and by {$sort: {f: {$meta: "textScore"}}}.
//
// Representation: stages pass plain BSON documents, so a document's
// metadata travels inside it as trailing fields with reserved names
// (kTextScoreField, kSortKeyField) that no stored document holds. They are
// only ever added when the pipeline asks for metadata
// (ExpressionContext::carries_metadata), so a pipeline without $meta pays
// nothing. Following MongoDB:
//   * stages that pass the document on keep them ($match, $sort, $limit,
//     $skip, $addFields/$set, $unset, $unwind, $lookup, $redact, exclusion
//     $project) because they keep its fields; inclusion $project carries
//     them over explicitly (stages/project.cc);
//   * stages that build new documents drop them ($group, $bucket,
//     $bucketAuto, $replaceRoot, $count, $facet's output, ...): {$meta}
//     then evaluates to missing, as in MongoDB 7;
//   * Pipeline::Run strips them from what the pipeline returns and from
//     what $out / $merge write.
//
// Thread-safety: free functions over immutable inputs.

#include <bson/bson.h>

#include <optional>
#include <string_view>

#include "engine/bson/bson_doc.h"
#include "engine/query/sort.h"

namespace tigerdoc::agg {

// Reserved names: a '$'-prefixed name with a NUL-free marker no
// user-visible field path can produce from stored data.
inline constexpr std::string_view kTextScoreField = "$\x01textScore";
inline constexpr std::string_view kSortKeyField = "$\x01sortKey";

// The metadata names of MongoDB 7's $meta this pipeline reads.
struct MetadataUse {
  bool text_score = false;
  bool sort_key = false;
};
// Scans a pipeline (or any BSON value tree: sub-pipelines included) for
// {$meta: "textScore"} / {$meta: "sortKey"}.
MetadataUse ScanMetadataUse(const bson_t* pipeline);

// The document's text score; nullopt when it has none.
std::optional<double> TextScoreOf(const bson_t* doc);
// The document's sort key element (an array); false when it has none.
bool SortKeyOf(const bson_t* doc, bson_iter_t* out);

// True when `doc` holds a metadata field.
bool HasMetadata(const bson_t* doc);
// `doc` without its metadata fields (moved through when it has none).
bson::BsonDoc WithoutMetadata(bson::BsonDoc doc);
// Appends the metadata fields of `from` to `to` (skipping those `to`
// already has).
void CopyMetadata(const bson_t* from, bson_t* to);

// `doc` with its sort key metadata set to what `spec` sorts it by.
bson::BsonDoc WithSortKey(bson::BsonDoc doc, const query::SortSpec& spec);

}  // namespace tigerdoc::agg
