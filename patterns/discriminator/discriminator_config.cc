#include "patterns/discriminator/discriminator_config.h"

#include "engine/bson/shell_string.h"

namespace tigerdoc::patterns::discriminator {
namespace {

std::string FieldName(std::string_view command, std::string_view sub) {
  return "BSON field '" + std::string(command) + ".discriminator" +
         (sub.empty() ? "" : "." + std::string(sub)) + "'";
}

Status WrongType(std::string_view command, std::string_view sub, const char* expected) {
  return Status(ErrorCode::kTypeMismatch,
                FieldName(command, sub) + " is the wrong type, expected " + expected);
}

bool IsWildcard(const std::string& key) {
  return key.size() >= 2 && key.compare(key.size() - 2, 2, ".*") == 0;
}

}  // namespace

StatusWith<DiscriminatorConfig> DiscriminatorConfig::Parse(std::string_view command,
                                                           const bson_iter_t* option,
                                                           std::string_view db) {
  if (!BSON_ITER_HOLDS_DOCUMENT(option)) return WrongType(command, "", "object");
  DiscriminatorConfig config;
  bool has_types = false;
  bson_iter_t it;
  bson_iter_recurse(option, &it);
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    if (key == "field") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(command, key, "string");
      config.field_ = bson_iter_utf8(&it, nullptr);
      if (config.field_.empty() || config.field_[0] == '$' ||
          config.field_.find("..") != std::string::npos || config.field_.back() == '.') {
        return Status(ErrorCode::kBadValue,
                      FieldName(command, key) + " must be a field path such as \"type\", got \"" +
                          config.field_ + "\"");
      }
    } else if (key == "required") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType(command, key, "bool");
      config.required_ = bson_iter_bool(&it);
    } else if (key == "validationLevel") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(command, key, "string");
      const std::string level = bson_iter_utf8(&it, nullptr);
      if (level != "strict" && level != "moderate") {
        return Status(ErrorCode::kBadValue, FieldName(command, key) +
                                                " must be \"strict\" or \"moderate\", got \"" +
                                                level + "\"");
      }
      config.moderate_ = level == "moderate";
    } else if (key == "types") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(command, key, "object");
      has_types = true;
      bson_iter_t types;
      bson_iter_recurse(&it, &types);
      while (bson_iter_next(&types)) {
        TypeRule rule;
        rule.key = bson_iter_key(&types);
        const std::string where = "types." + rule.key;
        const size_t star = rule.key.find('*');
        if (rule.key.empty() || rule.key == ".*" ||
            (star != std::string::npos && (!IsWildcard(rule.key) || star != rule.key.size() - 1))) {
          return Status(ErrorCode::kBadValue,
                        FieldName(command, where) +
                            ": a type is a value (\"user.login\") or a prefix ending in \".*\" "
                            "(\"order.*\")");
        }
        if (!BSON_ITER_HOLDS_DOCUMENT(&types)) {
          return WrongType(command, where, "object (a query validator, {} for none)");
        }
        uint32_t len = 0;
        const uint8_t* data = nullptr;
        bson_iter_document(&types, &len, &data);
        rule.validator = bson::BsonDoc::CopyOf(data, len);
        if (!rule.validator.empty()) {
          StatusWith<engine::Validator> compiled = engine::Validator::Parse(rule.validator.get(), db);
          if (!compiled.ok()) {
            return compiled.status().WithContext(FieldName(command, where) + ": ");
          }
          rule.compiled = std::make_shared<const engine::Validator>(std::move(compiled).value());
        }
        config.types_.push_back(std::move(rule));
      }
    } else {
      return Status(ErrorCode::kLocation40415,
                    FieldName(command, key) + " is an unknown field.");
    }
  }
  if (!has_types || config.types_.empty()) {
    return Status(ErrorCode::kBadValue,
                  FieldName(command, "types") + " must declare at least one type");
  }
  return config;
}

StatusWith<DiscriminatorConfig> DiscriminatorConfig::FromCanonical(const bson_t* config,
                                                                   std::string_view db) {
  bson::BsonDoc wrapped;
  BSON_APPEND_DOCUMENT(wrapped.mutable_get(), "d", config);
  bson_iter_t it;
  bson_iter_init_find(&it, wrapped.get(), "d");
  return Parse("catalog", &it, db);
}

bson::BsonDoc DiscriminatorConfig::ToCanonical() const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "field", field_.c_str());
  BSON_APPEND_BOOL(doc, "required", required_);
  BSON_APPEND_UTF8(doc, "validationLevel", moderate_ ? "moderate" : "strict");
  bson_t types;
  BSON_APPEND_DOCUMENT_BEGIN(doc, "types", &types);
  for (const TypeRule& rule : types_) {
    bson_append_document(&types, rule.key.data(), static_cast<int>(rule.key.size()),
                         rule.validator.get());
  }
  bson_append_document_end(doc, &types);
  return out;
}

const TypeRule* DiscriminatorConfig::RuleFor(std::string_view value) const {
  const TypeRule* best = nullptr;
  size_t best_prefix = 0;
  for (const TypeRule& rule : types_) {
    if (!IsWildcard(rule.key)) {
      if (rule.key == value) return &rule;  // exact beats every prefix
      continue;
    }
    // "order.*" covers "order.created" (the prefix keeps its dot).
    const std::string_view prefix(rule.key.data(), rule.key.size() - 1);
    if (value.size() > prefix.size() && value.compare(0, prefix.size(), prefix) == 0 &&
        prefix.size() >= best_prefix) {
      best = &rule;
      best_prefix = prefix.size();
    }
  }
  return best;
}

DiscriminatorConfig::Value DiscriminatorConfig::ValueOf(const bson_t* doc) const {
  Value out;
  bson_iter_t root, it;
  if (!bson_iter_init(&root, doc) || !bson_iter_find_descendant(&root, field_.c_str(), &it)) {
    return out;
  }
  out.present = true;
  if (BSON_ITER_HOLDS_UTF8(&it)) {
    uint32_t len = 0;
    const char* s = bson_iter_utf8(&it, &len);
    out.is_string = true;
    out.text.assign(s, len);
  } else {
    out.text = bson::ToShellString(&it);
  }
  return out;
}

}  // namespace tigerdoc::patterns::discriminator
