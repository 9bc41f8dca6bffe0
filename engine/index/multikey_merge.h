#pragma once
// Merging the array paths documents reveal into an index's multikey
// metadata. That metadata only grows (as in MongoDB: a path once seen
// through an array stays multikey), so a merge is a union, field by field.
//
// One merge serves every place that records array paths: an index build
// (each document's keys into the spec being built), a write's catalog update
// (a batch's paths into the published spec) and the catalog's record of the
// paths it has persisted.
//
// `paths` are per key field components (MultikeyPaths, index_spec.h);
// `wildcard_paths` a wildcard index's dotted paths (wildcard.h).

#include <set>
#include <string>

#include "engine/index/index_spec.h"

namespace tigerdoc::index {

// Whether `paths`/`wildcard_paths` hold a component or path that
// `have`/`have_wildcard` lack: whether MergeArrayPaths would add anything.
bool AddsArrayPaths(const MultikeyPaths& have, const std::set<std::string>& have_wildcard,
                    const MultikeyPaths& paths, const std::set<std::string>& wildcard_paths);

// Adds `paths` to `into` field by field (`into` grows to paths.size()) and
// `wildcard_paths` to `into_wildcard`.
void MergeArrayPaths(MultikeyPaths& into, std::set<std::string>& into_wildcard,
                     const MultikeyPaths& paths, const std::set<std::string>& wildcard_paths);

// Whether MarkMultikey(spec, ...) would change `spec`.
bool ExtendsMultikey(const IndexSpec& spec, const MultikeyPaths& paths,
                     const std::set<std::string>& wildcard_paths);

// Marks the whole index multikey and merges the paths into its metadata.
void MarkMultikey(IndexSpec& spec, const MultikeyPaths& paths,
                  const std::set<std::string>& wildcard_paths);

}  // namespace tigerdoc::index
