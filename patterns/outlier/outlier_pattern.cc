#include "patterns/outlier/outlier_pattern.h"

#include "patterns/common/one_option_pattern.h"
#include "patterns/outlier/outlier_config.h"
#include "patterns/outlier/outlier_hook.h"
#include "patterns/outlier/outlier_view.h"

namespace tigerdoc::patterns::outlier {
namespace {

class OutlierPattern : public OneOptionPattern {
 public:
  OutlierPattern() : OneOptionPattern(kPatternName, kOption) {}
  bool KeepsOtherCollectionsInStep() const override { return true; }

  StatusWith<bson::BsonDoc> ConfigureOption(std::string_view command, const bson_iter_t* value,
                                            const bson_t* previous) const override {
    ASSIGN_OR_RETURN(OutlierConfig config, OutlierConfig::Parse(command, value));
    if (previous != nullptr && !bson_empty(previous)) {
      ASSIGN_OR_RETURN(OutlierConfig before, OutlierConfig::FromCanonical(previous));
      RETURN_IF_ERROR(config.CheckChange(command, before));
    }
    return config.ToCanonical();
  }

  std::vector<CompanionView> ViewsOf(std::string_view, const bson_t* config) const override {
    StatusWith<OutlierConfig> parsed = OutlierConfig::FromCanonical(config);
    if (!parsed.ok() || parsed.value().view.empty()) return {};
    std::vector<CompanionView> views;
    views.push_back(CompanionView{parsed.value().view, ViewPipeline(parsed.value())});
    return views;
  }

  // Without the option, flagged documents would lose their overflow from
  // every read and write: they must fit again first.
  Status Detach(storage::Session& session, const catalog::CollectionEntry& coll) const override {
    ASSIGN_OR_RETURN(int64_t flagged, FlaggedDocuments(session, coll.metadata.ident));
    if (flagged == 0) return Status::OK();
    return Status(ErrorCode::kBadValue,
                  "BSON field 'collMod.outlier' cannot be removed while " + std::to_string(flagged) +
                      " documents of " + coll.metadata.ns +
                      " have items in the overflow collection; $pull or $set their arrays down "
                      "to the threshold first");
  }

  StatusWith<std::shared_ptr<engine::PatternHook>> Attach(
      storage::Session& session, const catalog::CollectionEntry& coll, const bson_t* config,
      engine::AttachReason reason) const override {
    ASSIGN_OR_RETURN(OutlierConfig parsed, OutlierConfig::FromCanonical(config));
    RETURN_IF_ERROR(parsed.CheckAgainst(
        reason == engine::AttachReason::kModify ? "collMod" : "create", coll.metadata.name));
    RETURN_IF_ERROR(session.CreateTable(CountersTableName(coll.metadata.ident)));
    return std::shared_ptr<engine::PatternHook>(
        std::make_shared<OutlierHook>(std::move(parsed), coll, catalog()));
  }
};

}  // namespace

std::unique_ptr<engine::Pattern> MakeOutlierPattern() { return std::make_unique<OutlierPattern>(); }

}  // namespace tigerdoc::patterns::outlier
