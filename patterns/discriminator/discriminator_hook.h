#pragma once
// DiscriminatorHook: the single-collection pattern's rules on every write
// (a document's discriminator value must name a declared type, whose
// validator it must pass) and its per-type {count, size}, kept in the
// "<ident>-types" table in the write's own transaction:
//   "m"                               -> 0x01   complete (absent: rebuilt from the documents)
//   "t" ++ type key ++ 0x00 ++ u8 stripe -> i64 count | i64 bytes   (big-endian)
//   "n" ++ u8 stripe                  -> documents without the field (required: false)
//   "u" ++ u8 stripe                  -> documents no declared type covers (left by a
//                                        moderate collMod)
// Stripes (16, one per writer thread) keep writers of one type from
// conflicting on one row.
//
// Thread-safety: immutable; state lives in WiredTiger.

#include <memory>
#include <optional>
#include <string>

#include "engine/write/hooks.h"
#include "patterns/discriminator/discriminator_config.h"

namespace tigerdoc::patterns::discriminator {

class DiscriminatorHook : public engine::PatternHook {
 public:
  DiscriminatorHook(DiscriminatorConfig config, const catalog::CollectionEntry& coll);

  Status BeforeStore(engine::HookContext& ctx, const engine::WriteEvent& event,
                     bson::BsonDoc* reshaped) override;
  Status AfterStore(engine::HookContext& ctx, const engine::WriteEvent& event) override;
  Status AfterRemove(engine::HookContext& ctx, const engine::WriteEvent& event) override;
  Status AppendStats(storage::Session& session, const catalog::CollectionEntry& coll,
                     bson_t* out) override;
  Status AppendShardStats(storage::Session& session, const catalog::CollectionEntry& coll,
                          int shard, bson_t* out) override;
  void AppendExplain(const catalog::CollectionEntry& coll, bson_t* out) const override;
  Status Validate(storage::Session& session, const catalog::CollectionEntry& coll,
                  std::vector<std::string>* problems) override;

  // Why `doc` breaks the rules (OK when it does not): 121 with errInfo.
  Status Check(const bson_t* doc) const;
  // The row prefix a document is counted under.
  std::string BucketOf(const bson_t* doc) const;

 private:
  // Adds to the counts of `doc`'s bucket in the document's shard.
  Status Add(engine::HookContext& ctx, const bson_t* doc, int64_t count, int64_t bytes);
  // field, types: {<key>: {count, size}}, untyped, undeclared; of one shard
  // or (nullopt) of all.
  Status AppendCounts(storage::Session& session, std::optional<int> shard, bson_t* out);

  const DiscriminatorConfig config_;
  const std::string table_;
};

std::string TypesTableName(const std::string& ident);

// The row prefix of a bucket's counts in one shard: bucket ++ u16 shard
// (big-endian); a u8 stripe follows it in each row key.
std::string ShardBucketKey(const std::string& bucket, int shard);

// Rebuilds the types table of `coll` from its documents; with `check`, also
// fails (121) when a document breaks `hook`'s rules. REQUIRES: no write runs.
Status RebuildTypes(storage::Session& session, const catalog::CollectionEntry& coll,
                    const DiscriminatorHook& hook, bool check);

}  // namespace tigerdoc::patterns::discriminator
