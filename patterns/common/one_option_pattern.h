#pragma once
// OneOptionPattern: the base of a pattern configured by one create/collMod
// option (archive, discriminator, outlier, subset). The option is given
// whole (collMod replaces it, nothing merges with the previous value) and
// null removes it: Configure then returns the empty config that means "no
// longer configured" (engine/write/pattern_registry.h). ConfigureOption
// parses a present, non-null value.
//
// Thread-safety: as engine::Pattern (const methods).

#include <bson/bson.h>

#include <string>
#include <string_view>
#include <vector>

#include "engine/write/pattern_registry.h"

namespace tigerdoc::patterns {

class OneOptionPattern : public engine::Pattern {
 public:
  OneOptionPattern(std::string_view name, std::string_view option) : name_(name), option_(option) {}

  std::string_view name() const final { return name_; }
  std::vector<std::string> option_names() const final { return {option_}; }

  StatusWith<bson::BsonDoc> Configure(std::string_view command, const bson_t* given,
                                      const bson_t* previous) const final {
    bson_iter_t it;
    if (!bson_iter_init_find(&it, given, option_.c_str()) || BSON_ITER_HOLDS_NULL(&it)) {
      return bson::BsonDoc();
    }
    return ConfigureOption(command, &it, previous);
  }

 protected:
  // The canonical config for the option's value at `value`; `previous` is
  // the current config (empty at create) and as Configure's.
  virtual StatusWith<bson::BsonDoc> ConfigureOption(std::string_view command,
                                                    const bson_iter_t* value,
                                                    const bson_t* previous) const = 0;

 private:
  std::string_view name_;
  std::string option_;
};

}  // namespace tigerdoc::patterns
