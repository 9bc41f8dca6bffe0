#include "patterns/archive/archive_pattern.h"

#include "engine/archive/archive_spec.h"
#include "patterns/common/one_option_pattern.h"

namespace tigerdoc::patterns::archive {
namespace {

// Configure has no namespace: the option is checked against a stand-in
// source (the target's database defaults to it), and again with the real
// one at Attach (a target equal to the collection, a union view named like
// it).
constexpr char kStandInDb[] = "db";

class ArchivePattern : public OneOptionPattern {
 public:
  ArchivePattern() : OneOptionPattern(kPatternName, kOption) {}

  StatusWith<bson::BsonDoc> ConfigureOption(std::string_view command, const bson_iter_t* value,
                                            const bson_t* /*previous*/) const override {
    const std::string prefix = std::string(command) + "." + kOption;
    if (!BSON_ITER_HOLDS_DOCUMENT(value)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field '" + prefix + "' is the wrong type, expected type 'object'");
    }
    bson_t option = bson::SubDocumentView(value);
    ASSIGN_OR_RETURN(engine::ArchiveSpec spec,
                     engine::ParseArchiveSpec(&option, engine::ArchiveForm::kOption, prefix,
                                              kStandInDb, ""));
    return engine::ArchiveOptionDocument(spec);
  }

  StatusWith<std::shared_ptr<engine::PatternHook>> Attach(
      storage::Session& /*session*/, const catalog::CollectionEntry& coll, const bson_t* config,
      engine::AttachReason /*reason*/) const override {
    RETURN_IF_ERROR(engine::ParseArchiveSpec(config, engine::ArchiveForm::kOption, kOption,
                                             coll.metadata.db, coll.metadata.name)
                        .status());
    // No per-write work: the moves run beside the writes.
    return std::make_shared<engine::PatternHook>();
  }
};

}  // namespace

std::unique_ptr<engine::Pattern> MakeArchivePattern() { return std::make_unique<ArchivePattern>(); }

}  // namespace tigerdoc::patterns::archive
