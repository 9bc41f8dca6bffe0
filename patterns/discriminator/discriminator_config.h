#pragma once
// DiscriminatorConfig: the parsed `discriminator` option (patterns/README.md)
//   { field: "type", required: true, validationLevel: "strict",
//     types: { "user.login": {}, "order.*": {<query validator>}, ... } }
// and the lookup of a document's type: an exact key first, else the longest
// "<prefix>.*" key whose prefix the value starts with.
//
// Per-type validators are MongoDB validators (engine/write/document_validator.h:
// any query expression, $jsonSchema, $expr), whose Explain() gives a
// failure's errInfo.details in MongoDB's shape.
//
// Thread-safety: immutable after Parse.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/write/document_validator.h"

namespace tigerdoc::patterns::discriminator {

inline constexpr char kPatternName[] = "discriminator";

struct TypeRule {
  std::string key;            // as declared: "user.login" or "order.*"
  bson::BsonDoc validator;    // {} when none
  std::shared_ptr<const engine::Validator> compiled;  // nullptr when the validator is empty
};

class DiscriminatorConfig {
 public:
  // Parses the option value `it` of `command` (error messages name
  // "<command>.discriminator.<field>"). 2 BadValue, 14 TypeMismatch, 40415
  // unknown field; a validator's own parse errors as engine::Validator
  // reports them. `db` is the database $expr in validators runs in.
  static StatusWith<DiscriminatorConfig> Parse(std::string_view command, const bson_iter_t* it,
                                               std::string_view db);
  // From the canonical config stored in the catalog.
  static StatusWith<DiscriminatorConfig> FromCanonical(const bson_t* config, std::string_view db);
  bson::BsonDoc ToCanonical() const;

  const std::string& field() const { return field_; }
  bool required() const { return required_; }
  bool moderate() const { return moderate_; }
  const std::vector<TypeRule>& types() const { return types_; }

  // The rule for `value` (nullptr when no declared type covers it).
  const TypeRule* RuleFor(std::string_view value) const;
  // The discriminator value of `doc`: nullopt when the field is missing;
  // a non-string value is returned rendered as in the shell.
  struct Value {
    bool present = false;
    bool is_string = false;
    std::string text;
  };
  Value ValueOf(const bson_t* doc) const;

 private:
  std::string field_ = "type";
  bool required_ = true;
  bool moderate_ = false;
  std::vector<TypeRule> types_;
};

}  // namespace tigerdoc::patterns::discriminator
