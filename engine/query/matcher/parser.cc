#include "engine/query/matcher/parser.h"

#include <cstring>

#include "engine/query/matcher/comparison.h"
#include "engine/query/matcher/evaluation.h"
#include "engine/query/matcher/operator_table.h"

namespace tigerdoc::query {

bool IsExpressionDocument(const bson_iter_t* value, bool allow_incomplete_dbref) {
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) return false;
  bson_t sub;
  if (!bson::OpenSubdocument(value, &sub)) return false;
  bson_iter_t it;
  if (!bson_iter_init(&it, &sub) || !bson_iter_next(&it)) return false;  // empty
  if (bson_iter_key(&it)[0] != '$') return false;
  bool has_ref = false, has_id = false, has_db = false;
  do {
    const char* key = bson_iter_key(&it);
    if (std::strcmp(key, "$ref") == 0) has_ref = true;
    else if (std::strcmp(key, "$id") == 0) has_id = true;
    else if (std::strcmp(key, "$db") == 0) has_db = true;
  } while (bson_iter_next(&it));
  const bool is_dbref = allow_incomplete_dbref ? (has_ref || has_id || has_db) : (has_ref && has_id);
  return !is_dbref;
}

Status ParseOperatorDocument(const std::string& path, const bson_t* operators, ParseLevel level,
                             ListExpression* out) {
  bson_iter_t it;
  bson_iter_init(&it, operators);
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const PathOperator* op = FindPathOperator(key);
    if (op == nullptr) {
      if (std::strcmp(key, "$where") == 0) {
        return Status(ErrorCode::kBadValue, "$where cannot be applied to a field");
      }
      return Status(ErrorCode::kBadValue, std::string("unknown operator: ") + key);
    }
    ASSIGN_OR_RETURN(MatchExpressionPtr node, op->parse(path, &it, operators, level));
    if (node) out->Add(std::move(node));
  }
  return Status::OK();
}

StatusWith<MatchExpressionPtr> ParseFilter(const bson_t* filter, ParseLevel level) {
  auto root = std::make_unique<ListExpression>(MatchKind::kAnd);
  bson_iter_t it;
  if (!bson_iter_init(&it, filter)) {
    return Status(ErrorCode::kInvalidBSON, "invalid BSON in query filter");
  }
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    if (key[0] == '$') {
      const TopLevelOperator* op = FindTopLevelOperator(key);
      if (op == nullptr) {
        // MongoDB's hint differs for the one operator people most often
        // try at the top level by mistake.
        const char* hint = std::strcmp(key, "$not") == 0
                               ? ". If you are trying to negate an entire expression, use $nor."
                               : ". If you have a field name that starts with a '$' symbol, "
                                 "consider using $getField or $setField.";
        return Status(ErrorCode::kBadValue,
                      std::string("unknown top level operator: ") + key + hint);
      }
      ASSIGN_OR_RETURN(MatchExpressionPtr node, op->parse(key, &it, level));
      if (node) root->Add(std::move(node));
      continue;
    }
    if (IsExpressionDocument(&it, false)) {
      bson_t operators;
      bson::OpenSubdocument(&it, &operators);
      RETURN_IF_ERROR(ParseOperatorDocument(key, &operators, level, root.get()));
      continue;
    }
    if (BSON_ITER_HOLDS_REGEX(&it)) {
      const char* flags = nullptr;
      const char* pattern = bson_iter_regex(&it, &flags);
      ASSIGN_OR_RETURN(auto regex, RegexExpression::Make(key, pattern, flags ? flags : ""));
      root->Add(std::move(regex));
      continue;
    }
    if (BSON_ITER_HOLDS_UNDEFINED(&it)) {
      return Status(ErrorCode::kBadValue, "cannot compare to undefined");
    }
    root->Add(std::make_unique<ComparisonExpression>(MatchKind::kEq, key, OwnedValue(&it)));
  }
  if (root->num_children() == 1) {
    auto children = root->ReleaseChildren();
    return std::move(children[0]);
  }
  return MatchExpressionPtr(std::move(root));
}

}  // namespace tigerdoc::query
