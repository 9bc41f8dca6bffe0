#pragma once
// $jsonSchema: MongoDB's JSON Schema (draft 4 subset plus bsonType) as a
// query operator, usable in find/count/$match/update filters and in
// collection validators (engine/write/document_validator.h).
//
//   {$jsonSchema: {bsonType: "object", required: ["name"],
//                  properties: {name: {bsonType: "string"},
//                               year: {bsonType: "int", minimum: 2017}}}}
//
// The schema is compiled into a tree of JsonSchema nodes, one per
// (sub)schema; each node holds the keywords it was given:
//
//        JsonSchema (root: the document)
//         ├─ properties: name ──► JsonSchema (the field's value)
//         │              year ──► JsonSchema
//         ├─ items / additionalItems / patternProperties / ... ──► JsonSchema
//         └─ allOf / anyOf / oneOf / not ──► JsonSchema (the same value)
//
// Semantics (MongoDB's, not JSON Schema's where they differ): keywords of
// one kind apply only to values of that kind (minimum to numbers, minLength
// to strings, items to arrays, properties/required to objects); a missing
// property satisfies its subschema (only `required` notices); there is no
// implicit array traversal; `type` names JSON types ("integer" is refused,
// as MongoDB does), `bsonType` names BSON types and "number".
//
// Explain() builds MongoDB's errInfo.details for a value that fails
// (src/mongo/db/matcher/doc_validation_error.cpp's shapes: operatorName,
// specifiedAs, reason, consideredValue, schemaRulesNotSatisfied,
// propertiesNotSatisfied, missingProperties, ...).
//
// Thread-safety: immutable after Parse(); concurrent use is safe.

#include <bson/bson.h>

#include <memory>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/query/matcher/match_expression.h"

namespace tigerdoc::query {

class JsonSchema;

class JsonSchemaExpression : public MatchExpression {
 public:
  ~JsonSchemaExpression() override;

  // Parses the operand of $jsonSchema with MongoDB's codes: 14 TypeMismatch
  // for a keyword of the wrong type, 9 FailedToParse for unknown ("Unknown
  // $jsonSchema keyword: x") or unsupported ("$jsonSchema keyword 'x' is not
  // currently supported") keywords and bad values, 2 BadValue for unknown
  // bsonType aliases.
  static StatusWith<std::unique_ptr<JsonSchemaExpression>> Parse(const bson_iter_t* operand);

  bool Matches(const bson_t* doc) const override;
  // A document value is validated as a root; anything else does not match.
  bool MatchesValue(const bson_iter_t* value) const override;

  // errInfo.details for `doc`, which REQUIRES !Matches(doc):
  // {operatorName: "$jsonSchema", [title], [description],
  //  schemaRulesNotSatisfied: [...]}.
  bson::BsonDoc Explain(const bson_t* doc) const;

  // The schema as given.
  const bson_t* spec() const { return spec_.get(); }

 private:
  JsonSchemaExpression(bson::BsonDoc spec, std::unique_ptr<JsonSchema> root);

  bson::BsonDoc spec_;
  std::unique_ptr<JsonSchema> root_;
};

}  // namespace tigerdoc::query
