#pragma once
// What the subset pattern writes: the per-key counter rows of the child's
// "<ident>-subset" table and the parents' subset arrays and counters.
//
// "<ident>-subset" (key_format=u, value_format=u):
//   "m"                          -> 0x01     complete (absent: rebuilt from the children)
//   "p" ++ keystring(parent key) -> CounterState (subset_counters.h), one row per
//                                   parent key that has children; kept whether or not
//                                   the parent exists, so it is always exact
//
// A parent is rewritten whole for its key: `as` = the best `limit`
// children (read through the {localField, sort..., _id} index, in the
// caller's transaction, so the write being made is seen), and each counter
// rendered from the key's row. Parent writes go through the parent's own
// CollectionWriter (its rules, size limits and hooks apply) with the
// subset's origin, which the parent's guard lets through.
//
// Thread-safety: functions use the caller's session.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/catalog/catalog.h"
#include "engine/storage/storage_engine.h"
#include "engine/write/collection_writer.h"
#include "patterns/subset/subset_config.h"
#include "patterns/subset/subset_counters.h"

namespace tigerdoc::patterns::subset {

std::string StateTableName(const std::string& ident);

// A child's parent key: its localField value.
struct ParentKey {
  bson::BsonDoc value;  // {"v": <value>}
  std::string row;      // "p" ++ keystring(value)
  const bson_value_t* get(bson_iter_t* it) const;
};
// nullopt when the child has no (or a null) localField; BadValue when it is
// an array (a child belongs to one parent).
StatusWith<std::optional<ParentKey>> KeyOf(const SubsetConfig& config, const std::string& child_ns,
                                           const bson_t* child);
ParentKey KeyFor(const bson_iter_t* value);

StatusWith<CounterState> ReadState(storage::Session& session, const std::string& table,
                                   const std::string& row, size_t counters);
// Removes the row when no child is counted.
Status WriteState(storage::Session& session, const std::string& table, const std::string& row,
                  const CounterState& state);

// The best `limit` children of `key`, projected. REQUIRES: in a transaction.
StatusWith<std::vector<bson::BsonDoc>> TopChildren(storage::Session& session,
                                                   std::shared_ptr<catalog::CollectionEntry> child,
                                                   const SubsetConfig& config,
                                                   const bson_value_t* key);
// The counters of `key` computed from every child that has it.
StatusWith<CounterState> CountChildren(storage::Session& session,
                                       std::shared_ptr<catalog::CollectionEntry> child,
                                       const SubsetConfig& config, const bson_value_t* key);
// The parents whose foreignField equals `key`.
StatusWith<std::vector<bson::BsonDoc>> ParentsOf(storage::Session& session,
                                                 std::shared_ptr<catalog::CollectionEntry> parent,
                                                 const SubsetConfig& config,
                                                 const bson_value_t* key);
// {$set: {<as>: [...], <counter>: ...}} for the parents of a key.
bson::BsonDoc ParentUpdate(const SubsetConfig& config, const std::vector<bson::BsonDoc>& top,
                           const CounterState& state);

// Rewrites the parents of `key` from its children (`state` is the key's
// counters) through `parent_writer`, whose origin the caller set.
// A parent document that would pass its size limit fails with that limit's
// error (17419 for the 16 MiB default). REQUIRES: in a transaction.
Status RefreshParents(storage::Session& session, std::shared_ptr<catalog::CollectionEntry> child,
                      std::shared_ptr<catalog::CollectionEntry> parent,
                      engine::CollectionWriter& parent_writer, const SubsetConfig& config,
                      const bson_value_t* key, const CounterState& state);

// Rebuilds the counter rows from a scan of the children (then the marker).
// REQUIRES: no transaction running; no write runs on the child.
Status RebuildStates(storage::Session& session, const catalog::CollectionEntry& child,
                     const SubsetConfig& config);

}  // namespace tigerdoc::patterns::subset
