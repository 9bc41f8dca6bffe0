#include "patterns/discriminator/discriminator_pattern.h"

#include "patterns/common/one_option_pattern.h"
#include "patterns/discriminator/discriminator_config.h"
#include "patterns/discriminator/discriminator_hook.h"

namespace tigerdoc::patterns::discriminator {
namespace {

constexpr char kOption[] = "discriminator";

class DiscriminatorPattern : public OneOptionPattern {
 public:
  DiscriminatorPattern() : OneOptionPattern(kPatternName, kOption) {}

  StatusWith<bson::BsonDoc> ConfigureOption(std::string_view command, const bson_iter_t* value,
                                            const bson_t* /*previous*/) const override {
    // $expr in a validator is compiled again with the collection's database
    // when the hook is attached; any database checks the syntax here.
    ASSIGN_OR_RETURN(DiscriminatorConfig config, DiscriminatorConfig::Parse(command, value, "admin"));
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
