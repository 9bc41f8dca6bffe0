#pragma once
// OutlierHook: keeps a parent document's array `path` at most `threshold`
// items long, the rest in overflow chunks (overflow_chunks.h), on every
// write of the parent, inside the write's transaction:
//
//   document not flagged (no overflow): any write, as plain MongoDB; when
//     the array it stores is longer than threshold, the first threshold
//     items stay, the rest become chunks, the flag is set.
//   document flagged: the update is routed (update_routing.h):
//     $push / $addToSet (+$each)   new items go to the end of the chunks
//                                  ($addToSet skips items already in either part)
//     $pull / $pullAll             applied to both parts, then the whole array
//                                  is laid out again: the embedded part is
//                                  refilled from the chunks, chunks repacked;
//                                  when it all fits the chunks go and the flag
//                                  is removed
//     replacement, $set / $unset   the new array is laid out from scratch
//       of the whole array
//     other fields                 the array and chunks stay
//     anything else on the array   refused, InvalidOptions (72); pipelines too
//   delete: the parent's chunks go with it.
// countField (when configured) holds the whole array's length; the flag
// field is `true` while chunks exist and absent otherwise.
//
// BeforeStore computes the stored parent (reads only); AfterStore computes
// the same layout again from the write's proposed document and writes the
// chunks through HookContext::WriterFor (the overflow collection's own
// rules and hooks apply), and the counters in "<ident>-outlier":
//   "f" ++ u8 stripe -> i64 count | i64 0   flagged parents
//   "o" ++ u8 stripe -> i64 count | i64 0   overflow chunks
//
// Thread-safety: immutable; state lives in WiredTiger.

#include <memory>
#include <optional>
#include <string>

#include "engine/write/hooks.h"
#include "patterns/outlier/item_list.h"
#include "patterns/outlier/overflow_chunks.h"
#include "patterns/outlier/outlier_config.h"
#include "patterns/outlier/update_routing.h"

namespace tigerdoc::patterns::outlier {

std::string CountersTableName(const std::string& ident);

class OutlierHook : public engine::PatternHook {
 public:
  OutlierHook(OutlierConfig config, const catalog::CollectionEntry& coll,
              catalog::Catalog* catalog);

  Status BeforeStore(engine::HookContext& ctx, const engine::WriteEvent& event,
                     bson::BsonDoc* reshaped) override;
  Status AfterStore(engine::HookContext& ctx, const engine::WriteEvent& event) override;
  Status AfterRemove(engine::HookContext& ctx, const engine::WriteEvent& event) override;
  StatusWith<UpdateEffect> EffectOfUpdate(engine::HookContext& ctx,
                                          const engine::WriteEvent& event,
                                          bool modified) override;
  Status AppendStats(storage::Session& session, const catalog::CollectionEntry& coll,
                     bson_t* out) override;
  void AppendExplain(const catalog::CollectionEntry& coll, bson_t* out) const override;
  Status Validate(storage::Session& session, const catalog::CollectionEntry& coll,
                  std::vector<std::string>* problems) override;

  const OutlierConfig& config() const { return config_; }
  bool IsFlagged(const bson_t* doc) const;

  // Where a write leaves the parent and its chunks.
  struct Layout {
    bson::BsonDoc parent;            // the document to store
    bool flagged = false;            // chunks exist afterwards
    enum class Chunks { kKeep, kAppend, kRewrite, kClear } chunks = Chunks::kKeep;
    ItemList items;                  // kAppend: new items; kRewrite: the whole array
    size_t overflow_begin = 0;       // kRewrite: first item that goes to chunks
    std::vector<Chunk> existing;     // chunks read (kAppend, kRewrite, kClear)
    bool existing_owned = false;     // they are the parent's (it was flagged)
  };
  // `need_chunks`: the caller writes the chunks (AfterStore); without it
  // only the parent must be right (BeforeStore), and the common $push reads
  // no chunk.
  StatusWith<Layout> Plan(engine::HookContext& ctx, const engine::WriteEvent& event,
                          const bson_t* proposed, bool need_chunks) const;

 private:
  StatusWith<engine::CollectionWriter*> Overflow(engine::HookContext& ctx) const;
  // The chunks of `parent` from seq `from_seq` on.
  StatusWith<std::vector<Chunk>> Chunks(engine::HookContext& ctx, const bson_t* parent,
                                        int64_t from_seq = 0, bool with_items = true) const;
  // countField of `doc` when configured and numeric.
  std::optional<int64_t> CountOf(const bson_t* doc) const;
  // The whole array `items` laid out: first threshold embedded, rest chunks.
  StatusWith<Layout> LayOut(engine::HookContext& ctx, const bson_t* proposed, ItemList items,
                            bool has_array, const bson_t* before, bool owned) const;
  // `proposed` with the array (items [0, embedded_end) of `embedded`, or
  // the array of `array_from` copied whole), the flag and the count.
  bson::BsonDoc Parent(const bson_t* proposed, const ItemList* embedded, size_t embedded_end,
                       bool flagged, int64_t count, const bson_t* array_from = nullptr) const;
  // " of the document {_id: ..} of db.c, whose items past N live in ..."
  std::string Where(const bson_t* doc) const;
  Status AddCounts(storage::Session& session, int64_t flagged, int64_t chunks) const;

  const OutlierConfig config_;
  const std::string table_;
  const std::string ns_;
  const std::string db_;
  catalog::Catalog* const catalog_;
};

// Flagged parents of the collection with ident `ident`, from its counters.
StatusWith<int64_t> FlaggedDocuments(storage::Session& session, const std::string& ident);

// Flagged parents and overflow chunks recounted from the documents.
struct OutlierCounts {
  int64_t flagged = 0;
  int64_t chunks = 0;
};

}  // namespace tigerdoc::patterns::outlier
