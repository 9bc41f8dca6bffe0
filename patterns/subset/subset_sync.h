#pragma once
// What the subset pattern writes: one row per parent key in the child's
// "<ident>-subset" table, and the parents' subset arrays and counters.
//
// "<ident>-subset" (key_format=u, value_format=u):
//   "m"                          -> 0x01     complete (absent: rebuilt from the children)
//   "p" ++ keystring(parent key) -> KeyRow as BSON
//        {s: <CounterState, subset_counters.h>,
//         t: [<sort key>, ...]}   the best `limit` children of the key, best
//                                 first, by sort key (SubsetConfig::SortKeyOf)
//   one row per key that has children, kept whether or not the parent
//   exists, so it is always exact; written by every child write that can
//   change the key's parent, so such writers of one key conflict on it (and
//   the write unit retries them) whatever else they write.
//
// Parents follow their key's row. A child entering the best (an insert, a
// move in, a promotion) is placed in the parent's array in memory; a child
// leaving it (a delete, a move out, a demotion, a change of a member) makes
// the best `limit` be read again through the {localField, sort..., _id}
// index, in the caller's transaction. Before an in-memory change the
// parent's array is checked against the row (its _ids); a parent that does
// not match (inserted after its children, or before a resync) is rebuilt
// from the index instead. Parent writes go through the parent's own
// CollectionWriter (its rules, size limits and hooks apply) with the
// subset's origin, which the parent's guard lets through.
//
// Thread-safety: functions use the caller's session.

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

struct KeyRow {
  CounterState counters;
  std::vector<bson::BsonDoc> top;  // sort keys of the best children, best first
  // The position `child_key` takes among the best; `top.size()` and more
  // mean it is not among them when they are full.
  size_t PositionOf(const SubsetConfig& config, const bson_t* child_key) const;
  // Whether the child with sort key `child_key` is among the best.
  bool Has(const SubsetConfig& config, const bson_t* child_key) const;
};
// A missing row is an empty one.
StatusWith<KeyRow> ReadRow(storage::Session& session, const std::string& table,
                           const std::string& row, const SubsetConfig& config);
// Removes the row when the key has no child left.
Status WriteRow(storage::Session& session, const std::string& table, const std::string& row,
                const KeyRow& key_row);

// The best `limit` children of `key`, whole. REQUIRES: in a transaction.
StatusWith<std::vector<bson::BsonDoc>> BestChildren(storage::Session& session,
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
// {$set: {<as>: [...], <counter>: ...}}; without `top`, the counters only.
bson::BsonDoc ParentUpdate(const SubsetConfig& config, const std::vector<bson::BsonDoc>* top,
                           const CounterState& state);

// How a key's parents change.
struct ParentChange {
  enum class Mode {
    kRebuild,   // `as` from the index (best_children when already read)
    kInsertAt,  // `entry` goes at `position` of the parent's array, which
                // must match `old_top`
    kCounters,  // `as` unchanged (it must match `old_top`): counters only
    kNone,      // nothing the parent shows changed
  };
  Mode mode = Mode::kRebuild;
  std::vector<bson::BsonDoc> old_top;           // the row's top before the change
  size_t position = 0;
  bson::BsonDoc entry;                          // projected
  std::optional<std::vector<bson::BsonDoc>> best_children;  // whole, when read
};

// Rewrites the parents of `key` (`row` is the key's row after the change)
// through `parent_writer`, whose origin the caller set. A parent that would
// pass its size limit fails with that limit's error (17419 for the 16 MiB
// default). REQUIRES: in a transaction.
Status RefreshParents(storage::Session& session, std::shared_ptr<catalog::CollectionEntry> child,
                      std::shared_ptr<catalog::CollectionEntry> parent,
                      engine::CollectionWriter& parent_writer, const SubsetConfig& config,
                      const bson_value_t* key, const KeyRow& row, ParentChange change);

// Rebuilds the rows from a scan of the children (then the marker).
// REQUIRES: no transaction running; no write runs on the child.
Status RebuildStates(storage::Session& session, const catalog::CollectionEntry& child,
                     const SubsetConfig& config);

}  // namespace tigerdoc::patterns::subset
