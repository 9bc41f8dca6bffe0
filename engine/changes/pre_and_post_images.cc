// changeStreamPreAndPostImages as a registry-owned collection option.

#include "engine/changes/pre_and_post_images.h"

#include <string>

#include "engine/catalog/change_event.h"

namespace tigerdoc::engine {
namespace {

class PreAndPostImagesOption : public Pattern {
 public:
  std::string_view name() const override { return catalog::kPreAndPostImagesOption; }
  std::vector<std::string> option_names() const override {
    return {catalog::kPreAndPostImagesOption};
  }

  StatusWith<bson::BsonDoc> Configure(std::string_view command, const bson_t* given,
                                      const bson_t* /*previous*/) const override {
    const std::string field =
        "BSON field '" + std::string(command) + "." + catalog::kPreAndPostImagesOption;
    bson_iter_t it;
    if (!bson_iter_init_find(&it, given, catalog::kPreAndPostImagesOption)) return bson::BsonDoc();
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    field + "' is the wrong type, expected type 'object'");
    }
    bson_iter_t inner;
    bson_iter_recurse(&it, &inner);
    std::optional<bool> enabled;
    while (bson_iter_next(&inner)) {
      const std::string_view key = bson_iter_key(&inner);
      if (key != "enabled") {
        return Status(ErrorCode::kLocation40415,
                      field + "." + std::string(key) + "' is an unknown field.");
      }
      if (!BSON_ITER_HOLDS_BOOL(&inner)) {
        return Status(ErrorCode::kTypeMismatch,
                      field + ".enabled' is the wrong type, expected type 'bool'");
      }
      enabled = bson_iter_bool(&inner);
    }
    if (!enabled) {
      return Status(ErrorCode::kLocation40414,
                    field + ".enabled' is missing but a required field");
    }
    bson::BsonDoc config;
    if (*enabled) BSON_APPEND_BOOL(config.mutable_get(), "enabled", true);
    return config;
  }

  StatusWith<std::shared_ptr<PatternHook>> Attach(storage::Session& /*session*/,
                                                  const catalog::CollectionEntry& /*coll*/,
                                                  const bson_t* /*config*/,
                                                  AttachReason /*reason*/) const override {
    return std::make_shared<PatternHook>();
  }
};

}  // namespace

std::unique_ptr<Pattern> MakePreAndPostImagesOption() {
  return std::make_unique<PreAndPostImagesOption>();
}

}  // namespace tigerdoc::engine
