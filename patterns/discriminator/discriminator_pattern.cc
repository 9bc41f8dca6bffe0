#include "patterns/discriminator/discriminator_pattern.h"

#include "patterns/discriminator/discriminator_config.h"
#include "patterns/discriminator/discriminator_hook.h"

namespace tigerdoc::patterns::discriminator {
namespace {

constexpr char kOption[] = "discriminator";

class DiscriminatorPattern : public engine::Pattern {
 public:
  std::string_view name() const override { return kPatternName; }
  std::vector<std::string> option_names() const override { return {kOption}; }

  StatusWith<bson::BsonDoc> Configure(std::string_view command, const bson_t* given,
                                      const bson_t* /*previous*/) const override {
    // The option is given whole (collMod replaces it); null removes it.
    bson_iter_t it;
    if (!bson_iter_init_find(&it, given, kOption) || BSON_ITER_HOLDS_NULL(&it)) {
      return bson::BsonDoc();
    }
    // $expr in a validator is compiled again with the collection's database
    // when the hook is attached; any database checks the syntax here.
    ASSIGN_OR_RETURN(DiscriminatorConfig config, DiscriminatorConfig::Parse(command, &it, "admin"));
    return config.ToCanonical();
  }

  StatusWith<std::shared_ptr<engine::PatternHook>> Attach(
      storage::Session& session, const catalog::CollectionEntry& coll, const bson_t* config,
      engine::AttachReason reason) const override {
    ASSIGN_OR_RETURN(DiscriminatorConfig parsed, DiscriminatorConfig::FromCanonical(config, coll.metadata.db));
    const bool moderate = parsed.moderate();
    auto hook = std::make_shared<DiscriminatorHook>(std::move(parsed), coll);
    const std::string table = TypesTableName(coll.metadata.ident);
    RETURN_IF_ERROR(session.CreateTable(table));
    ASSIGN_OR_RETURN(std::optional<std::string> marker, session.Get(table, "m"));
    // New rules (collMod) count documents by the new types, and in strict
    // mode must hold for what is already stored.
    // A table of an older format (marker 0x01: counts not per shard) is
    // rebuilt too.
    if (reason == engine::AttachReason::kModify || !marker || *marker != "\x02") {
      RETURN_IF_ERROR(RebuildTypes(session, coll, *hook,
                                   reason == engine::AttachReason::kModify && !moderate));
    }
    return std::shared_ptr<engine::PatternHook>(hook);
  }

  Status Detach(storage::Session& session, const catalog::CollectionEntry& coll) const override {
    Status removed = session.Remove(TypesTableName(coll.metadata.ident), "m");
    return removed.code() == ErrorCode::kNoSuchKey ? Status::OK() : removed;
  }
};

}  // namespace

std::unique_ptr<engine::Pattern> MakeDiscriminatorPattern() {
  return std::make_unique<DiscriminatorPattern>();
}

}  // namespace tigerdoc::patterns::discriminator
