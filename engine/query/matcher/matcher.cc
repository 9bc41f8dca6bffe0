#include "engine/query/matcher/matcher.h"

#include <algorithm>

#include "engine/bson/compare.h"
#include "engine/query/matcher/comparison.h"
#include "engine/query/matcher/expr.h"
#include "engine/query/matcher/parser.h"

namespace tigerdoc::query {

namespace {

void CollectExprs(const MatchExpression* node, std::vector<const ExprMatchExpression*>* out) {
  if (node->kind() == MatchKind::kExpr) out->push_back(static_cast<const ExprMatchExpression*>(node));
  for (size_t i = 0; i < node->num_children(); ++i) CollectExprs(node->child(i), out);
}

}  // namespace

StatusWith<std::unique_ptr<Matcher>> Matcher::Parse(const bson_t* filter,
                                                    const ExpressionParser* expressions,
                                                    const bson::Collator* collator) {
  MatchExpressionPtr root;
  {
    ScopedExpressionParser scope(expressions);
    ASSIGN_OR_RETURN(root, ParseFilter(filter, ParseLevel::kTopLevel));
  }
  // Only a collation touches the tree: the simple path stays as parsed.
  if (collator != nullptr) root->AttachCollator(collator);
  std::unique_ptr<Matcher> matcher(new Matcher(std::move(root)));
  matcher->collator_ = collator;
  CollectExprs(matcher->root_.get(), &matcher->exprs_);
  return matcher;
}

Status Matcher::EvaluationError() const {
  for (const ExprMatchExpression* expr : exprs_) RETURN_IF_ERROR(expr->error());
  return Status::OK();
}

namespace {

bool Disqualifies(const OwnedValue* v) {
  return v->type() == BSON_TYPE_ARRAY || v->type() == BSON_TYPE_REGEX;
}

// Match type rank, then BSON order: equal exactly when SameValue.
int OrderOf(const OwnedValue* a, const OwnedValue* b) {
  const int ra = MatchTypeRank(a->get());
  const int rb = MatchTypeRank(b->get());
  if (ra != rb) return ra < rb ? -1 : 1;
  return bson::CompareValues(a->get(), b->get());
}

bool SameValue(const OwnedValue* a, const OwnedValue* b) {
  return MatchTypeRank(a->get()) == MatchTypeRank(b->get()) &&
         bson::CompareValues(a->get(), b->get()) == 0;
}

// The values `path` is constrained to by `node`; nullopt when `node` says
// nothing usable about it. `disqualified` is set when `node` constrains
// `path` in a form we cannot express as a finite set of scalars.
std::optional<std::vector<const OwnedValue*>> ValuesFor(const MatchExpression* node,
                                                          std::string_view path,
                                                          bool* disqualified) {
  switch (node->kind()) {
    case MatchKind::kEq: {
      const auto* eq = static_cast<const ComparisonExpression*>(node);
      if (eq->path().dotted() != path) return std::nullopt;
      if (Disqualifies(&eq->rhs())) {
        *disqualified = true;
        return std::nullopt;
      }
      return std::vector<const OwnedValue*>{&eq->rhs()};
    }
    case MatchKind::kIn: {
      const auto* in = static_cast<const InExpression*>(node);
      if (in->path().dotted() != path) return std::nullopt;
      if (in->has_regexes()) {
        *disqualified = true;
        return std::nullopt;
      }
      const std::vector<OwnedValue>& given = in->equalities();
      for (const OwnedValue& v : given) {
        if (Disqualifies(&v)) {
          *disqualified = true;
          return std::nullopt;
        }
      }
      // Each value once, first occurrences in the order given. Found by
      // sorting (a $in of 100,000 _ids must not cost n^2 comparisons).
      std::vector<size_t> order(given.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&given](size_t a, size_t b) {
        return OrderOf(&given[a], &given[b]) < 0;
      });
      std::vector<bool> keep(given.size(), false);
      for (size_t i = 0; i < order.size(); ++i) {
        keep[order[i]] = i == 0 || OrderOf(&given[order[i - 1]], &given[order[i]]) != 0;
      }
      std::vector<const OwnedValue*> values;
      for (size_t i = 0; i < given.size(); ++i) {
        if (keep[i]) values.push_back(&given[i]);
      }
      return values;
    }
    case MatchKind::kAnd: {
      std::optional<std::vector<const OwnedValue*>> result;
      for (size_t i = 0; i < node->num_children(); ++i) {
        auto child = ValuesFor(node->child(i), path, disqualified);
        if (!child) continue;  // this conjunct says nothing about `path`
        if (!result) {
          result = std::move(child);
          continue;
        }
        std::vector<const OwnedValue*> both;
        for (const OwnedValue* a : *result) {
          for (const OwnedValue* b : *child) {
            if (SameValue(a, b)) {
              both.push_back(a);
              break;
            }
          }
        }
        result = std::move(both);
      }
      return result;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<std::vector<bson::BsonDoc>> Matcher::EqualityValuesFor(std::string_view path) const {
  bool disqualified = false;
  auto values = ValuesFor(root_.get(), path, &disqualified);
  if (!values || disqualified) return std::nullopt;
  // Under a collation a string (or a document, which may hold strings)
  // also matches other bytes ("a" and "A" at strength 2): no finite set of
  // record keys, so no targeting by it.
  if (collator_ != nullptr) {
    for (const OwnedValue* v : *values) {
      const bson_type_t t = v->type();
      if (t == BSON_TYPE_UTF8 || t == BSON_TYPE_SYMBOL || t == BSON_TYPE_DOCUMENT) {
        return std::nullopt;
      }
    }
  }
  std::vector<bson::BsonDoc> out;
  out.reserve(values->size());
  for (const OwnedValue* v : *values) {
    bson::BsonDoc doc;
    bson_append_value(doc.mutable_get(), "", 0, v->get());
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace tigerdoc::query
