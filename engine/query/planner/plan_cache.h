#pragma once
// PlanCache: the winning plan per query shape, so a repeated query skips the
// candidates' key counts (MongoDB's plan cache).
//
// Shape (ShapeOf): the filter with every value replaced by its canonical
// type ({a: 5, b: {$gt: "x"}} and {a: 7, b: {$gt: "y"}} share a shape), plus
// sort, projection and hint as given. An entry remembers the winner's
// description (QueryPlan::Describe(): "COLLSCAN", "IXSCAN a_1", ...); the
// planner rebuilds that plan's bounds for the new values.
//
// Invalidation: an entry is valid only for the index set it was chosen
// under. Every create/drop (and multikey change) publishes a new
// IndexSet snapshot (engine/catalog), so a lookup with another snapshot
// drops the collection's entries.
//
// Thread-safety: all methods are thread-safe (one mutex; entries are tiny).

#include <bson/bson.h>

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace tigerdoc::query::planner {

class PlanCache {
 public:
  // The shape key of a query.
  static std::string ShapeOf(const bson_t* filter, const bson_t* sort, const bson_t* projection,
                             const std::string& hint);

  // `collection` names the collection instance (its ident); `index_set`
  // identifies the index snapshot the caller planned with.
  std::optional<std::string> Lookup(const std::string& collection, const std::shared_ptr<const void>& index_set,
                                    const std::string& shape);
  void Store(const std::string& collection, const std::shared_ptr<const void>& index_set, const std::string& shape,
             const std::string& winner);
  // Drops every entry of a collection (planCacheClear).
  void Clear(const std::string& collection);
  size_t size() const;

 private:
  struct PerCollection {
    std::weak_ptr<const void> index_set;  // weak: a freed snapshot never matches
    std::map<std::string, std::string> winners;  // shape -> winner
  };
  // Bound on all entries: beyond it the cache starts over (cheap and rare).
  static constexpr size_t kMaxEntries = 5000;

  mutable std::mutex mutex_;
  std::map<std::string, PerCollection> collections_;
  size_t entries_ = 0;
};

}  // namespace tigerdoc::query::planner
