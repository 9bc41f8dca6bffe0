// Union of array paths into multikey metadata (multikey_merge.h).

#include "engine/index/multikey_merge.h"

#include <algorithm>

namespace tigerdoc::index {

bool AddsArrayPaths(const MultikeyPaths& have, const std::set<std::string>& have_wildcard,
                    const MultikeyPaths& paths, const std::set<std::string>& wildcard_paths) {
  for (size_t i = 0; i < paths.size(); ++i) {
    if (paths[i].empty()) continue;
    if (i >= have.size() ||
        !std::includes(have[i].begin(), have[i].end(), paths[i].begin(), paths[i].end())) {
      return true;
    }
  }
  return !std::includes(have_wildcard.begin(), have_wildcard.end(), wildcard_paths.begin(),
                        wildcard_paths.end());
}

void MergeArrayPaths(MultikeyPaths& into, std::set<std::string>& into_wildcard,
                     const MultikeyPaths& paths, const std::set<std::string>& wildcard_paths) {
  if (into.size() < paths.size()) into.resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) into[i].insert(paths[i].begin(), paths[i].end());
  into_wildcard.insert(wildcard_paths.begin(), wildcard_paths.end());
}

bool ExtendsMultikey(const IndexSpec& spec, const MultikeyPaths& paths,
                     const std::set<std::string>& wildcard_paths) {
  return !spec.multikey ||
         AddsArrayPaths(spec.multikey_paths, spec.wildcard_multikey_paths, paths, wildcard_paths);
}

void MarkMultikey(IndexSpec& spec, const MultikeyPaths& paths,
                  const std::set<std::string>& wildcard_paths) {
  spec.multikey = true;
  MergeArrayPaths(spec.multikey_paths, spec.wildcard_multikey_paths, paths, wildcard_paths);
}

}  // namespace tigerdoc::index
