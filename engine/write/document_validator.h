#pragma once
// DocumentValidator: MongoDB's collection schema validation. A collection's
// options may hold
//
//   validator:        any query expression ($jsonSchema, $expr, $and, ...)
//   validationLevel:  "strict" (default) | "moderate" | "off"
//   validationAction: "error" (default)  | "warn"
//
// CollectionWriter calls Check() for every document it stores (insert,
// update, replace, upsert, findAndModify, $out, $merge), unless the command
// said bypassDocumentValidation. A failing document is refused with 121
// DocumentValidationFailure, "Document failed validation", and
// errInfo {failingDocumentId, details}; with "warn" the write goes on and a
// warning line (MongoDB's log id 20294) carries the errInfo.
//
// Validator is the reusable core (the discriminator pattern keeps one per
// document type): the compiled expression plus Explain(), which builds
// errInfo.details in MongoDB's shape (doc_validation_error.cpp):
//
//   {a: {$gt: 5}}                      -> {operatorName: "$gt", specifiedAs: {a: {$gt: 5}},
//                                          reason: "comparison failed", consideredValue: 1}
//   {a: 1, b: 2}  (several clauses)    -> {operatorName: "$and", clausesNotSatisfied:
//                                          [{index: 0, details: {...}}]}
//   {$or: [...]}                       -> {operatorName: "$or", clausesNotSatisfied: [...]}
//   {$jsonSchema: {...}}               -> {operatorName: "$jsonSchema", schemaRulesNotSatisfied: [...]}
//
// Thread-safety: immutable after Parse(); share freely.

#include <bson/bson.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::engine {

enum class ValidationLevel { kStrict, kModerate, kOff };
enum class ValidationAction { kError, kWarn };

inline constexpr char kValidatorOption[] = "validator";
inline constexpr char kValidationLevelOption[] = "validationLevel";
inline constexpr char kValidationActionOption[] = "validationAction";

// A compiled validator expression.
class Validator {
 public:
  ~Validator();
  Validator(Validator&&) noexcept;
  Validator& operator=(Validator&&) noexcept;

  // Parses a validator. Errors as MongoDB's: the query parser's for a bad
  // expression; BadValue (2) for operators a validator may not use ($near,
  // $nearSphere, $geoNear, $text, $where); NotImplemented (238) for what
  // tigerdoc lacks. `db` is the database $expr runs in.
  static StatusWith<Validator> Parse(const bson_t* validator_expr, std::string_view db);

  bool Matches(const bson_t* doc) const;
  // errInfo.details for `doc`; nullopt when `doc` passes.
  StatusWith<std::optional<bson::BsonDoc>> Explain(const bson_t* doc) const;

  const bson_t* expression() const { return expression_.get(); }

  struct Clause;  // a node of the explain tree (document_validator.cc)

 private:
  Validator();

  bson::BsonDoc expression_;
  std::unique_ptr<Clause> root_;
};

// A collection's validation settings.
class DocumentValidator {
 public:
  // From a collection's options; nullptr when they hold no validator (or an
  // empty one) -- the common case costs nothing. `ns` names the collection
  // in warnings.
  static StatusWith<std::shared_ptr<const DocumentValidator>> FromOptions(const bson_t* options,
                                                                          std::string_view db,
                                                                          std::string ns);

  // Checks the validationLevel / validationAction values of `options` and
  // parses its validator. `command` ("create", "collMod") names fields in
  // messages: BadValue "Enumeration value 'x' for field
  // 'create.validationLevel' is not a valid value.", TypeMismatch (14) for a
  // non-object validator or a non-string level/action.
  static Status CheckOptions(const bson_t* options, std::string_view command, std::string_view db);

  // OK when `new_doc` may be stored. `old_doc` is the document an update
  // replaces (null for inserts): with validationLevel "moderate" an update
  // of a document that already failed is not checked.
  Status Check(const bson_t* old_doc, const bson_t* new_doc) const;

  ValidationLevel level() const { return level_; }
  ValidationAction action() const { return action_; }
  const Validator& validator() const { return validator_; }

 private:
  DocumentValidator(Validator validator, ValidationLevel level, ValidationAction action,
                    std::string ns)
      : validator_(std::move(validator)), level_(level), action_(action), ns_(std::move(ns)) {}

  Validator validator_;
  ValidationLevel level_;
  ValidationAction action_;
  std::string ns_;
};

// The 121 error for `doc` failing with `details`:
// {code: 121, errmsg: "Document failed validation",
//  errInfo: {failingDocumentId, details}}.
Status DocumentValidationError(const bson_t* doc, const bson_t* details);

}  // namespace tigerdoc::engine
