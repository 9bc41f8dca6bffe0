// Binding $text to the collection's text index and the find side of
// {$meta: "textScore"}; see text_search.h.

#include "engine/query/text_search.h"

#include <cstring>

#include "engine/query/matcher/text.h"

namespace tigerdoc::query {
namespace {

struct TextNodes {
  std::vector<TextMatchExpression*> allowed;  // top level or under top-level $and
  bool under_or = false;
  bool under_nor = false;
  int total = 0;
};

void Collect(const MatchExpression* node, bool top_level, TextNodes* out) {
  if (node->kind() == MatchKind::kText) {
    ++out->total;
    // The executor owns the freshly parsed tree; binding happens before
    // any evaluation (text.h), hence the one cast.
    if (top_level) out->allowed.push_back(const_cast<TextMatchExpression*>(
                       static_cast<const TextMatchExpression*>(node)));
    return;
  }
  const bool and_node = node->kind() == MatchKind::kAnd;
  for (size_t i = 0; i < node->num_children(); ++i) {
    const MatchExpression* child = node->child(i);
    if (node->kind() == MatchKind::kOr && child->kind() == MatchKind::kText) out->under_or = true;
    if (node->kind() == MatchKind::kNor && child->kind() == MatchKind::kText) out->under_nor = true;
    Collect(child, top_level && and_node, out);
  }
}

}  // namespace

bool HasTextQuery(const Matcher& matcher) { return ContainsText(matcher.root()); }

namespace {

// The $text that is `node` or one of its conjuncts (through nested $ands).
const MatchExpression* ConjunctText(const MatchExpression* node) {
  if (node->kind() == MatchKind::kText) return node;
  if (node->kind() != MatchKind::kAnd) return nullptr;
  for (size_t i = 0; i < node->num_children(); ++i) {
    if (const MatchExpression* text = ConjunctText(node->child(i))) return text;
  }
  return nullptr;
}

// The branch of `or_node` holding a $text as itself or as a conjunct.
const MatchExpression* TextChildOf(const MatchExpression* or_node) {
  for (size_t i = 0; i < or_node->num_children(); ++i) {
    if (ConjunctText(or_node->child(i)) != nullptr) return or_node->child(i);
  }
  return nullptr;
}

// The $or with a $text branch among the conjuncts of `and_node` (its
// children, and theirs through nested $ands).
const MatchExpression* OrWithTextUnderAnd(const MatchExpression* and_node) {
  for (size_t i = 0; i < and_node->num_children(); ++i) {
    const MatchExpression* child = and_node->child(i);
    if (child->kind() == MatchKind::kOr && TextChildOf(child) != nullptr) return child;
    if (child->kind() == MatchKind::kAnd) {
      if (const MatchExpression* found = OrWithTextUnderAnd(child)) return found;
    }
  }
  return nullptr;
}

}  // namespace

const MatchExpression* OrWithTextBranch(const Matcher& matcher) {
  const MatchExpression* root = matcher.root();
  if (root->kind() == MatchKind::kOr) return TextChildOf(root) ? root : nullptr;
  if (root->kind() == MatchKind::kAnd) return OrWithTextUnderAnd(root);
  return nullptr;
}

const MatchExpression* TextBranchOfOr(const Matcher& matcher) {
  const MatchExpression* or_node = OrWithTextBranch(matcher);
  return or_node ? TextChildOf(or_node) : nullptr;
}

StatusWith<std::shared_ptr<const fts::TextQuery>> BindTextQuery(Matcher* matcher,
                                                                const index::IndexSet* indexes) {
  TextNodes nodes;
  Collect(matcher->root(), true, &nodes);
  if (nodes.total == 0) return std::shared_ptr<const fts::TextQuery>();
  if (nodes.total > 1) return Status(ErrorCode::kBadValue, "Too many text expressions");
  if (nodes.under_nor) return Status(ErrorCode::kBadValue, "text expression not allowed in nor");
  // A $text branch of a top-level $or, or of an $or in the top-level $and:
  // the plan executor reads it from the text index beside an index scan
  // per other branch of that $or (TextBranchOfOr).
  if (nodes.allowed.empty()) {
    if (const MatchExpression* branch = TextBranchOfOr(*matcher)) {
      nodes.allowed.push_back(const_cast<TextMatchExpression*>(
          static_cast<const TextMatchExpression*>(ConjunctText(branch))));
    }
  }
  if (nodes.allowed.empty()) {
    return Status(ErrorCode::kNoQueryExecutionPlans,
                  "error processing query: planner returned error :: caused by :: Failed to "
                  "produce a solution for TEXT under OR - other non-TEXT clauses under OR have to "
                  "be indexed as well.");
  }
  if (indexes == nullptr) return std::shared_ptr<const fts::TextQuery>();
  const index::IndexSpec* text_index = nullptr;
  for (const auto& spec : indexes->specs) {
    if (spec->text) text_index = spec.get();
  }
  if (text_index == nullptr) {
    return Status(ErrorCode::kIndexNotFound, "text index required for $text query");
  }
  TextMatchExpression* node = nodes.allowed.front();
  ASSIGN_OR_RETURN(std::shared_ptr<const fts::TextQuery> query,
                   fts::TextQuery::Make(node->options(), text_index->text));
  node->Bind(query);
  return query;
}

StatusWith<MetaProjection> SplitMetaProjection(const bson_t* projection) {
  MetaProjection out;
  bson_iter_t it;
  bson_iter_init(&it, projection);
  while (bson_iter_next(&it)) {
    bson_iter_t meta;
    if (BSON_ITER_HOLDS_DOCUMENT(&it) && bson_iter_recurse(&it, &meta) && bson_iter_next(&meta) &&
        std::strcmp(bson_iter_key(&meta), "$meta") == 0) {
      if (!BSON_ITER_HOLDS_UTF8(&meta)) {
        return Status(static_cast<ErrorCode>(17307), "$meta only supports string arguments");
      }
      const std::string name = bson_iter_utf8(&meta, nullptr);
      if (!IsKnownMeta(name)) {
        return Status(static_cast<ErrorCode>(17308), "Unsupported argument to $meta: " + name);
      }
      const std::string field = bson_iter_key(&it);
      if (name == "sortKey") {
        if (field.find('.') != std::string::npos) {
          return Status(ErrorCode::kNotImplemented,
                        "$meta: \"sortKey\" on a dotted path is not supported by tigerdoc yet");
        }
        out.sort_key_fields.push_back(field);
        continue;
      }
      if (name != "textScore") {
        return Status(ErrorCode::kNotImplemented,
                      "$meta: \"" + name + "\" in a projection is not supported by tigerdoc yet");
      }
      if (field.find('.') != std::string::npos) {
        return Status(ErrorCode::kNotImplemented,
                      "$meta: \"textScore\" on a dotted path is not supported by tigerdoc yet");
      }
      out.score_fields.push_back(field);
      continue;
    }
    bson_append_iter(out.rest.mutable_get(), nullptr, 0, &it);
  }
  return out;
}

bson::BsonDoc WithMetaValue(const bson_t* doc, const std::vector<std::string>& fields,
                            const bson_value_t* value) {
  bson::BsonDoc out;
  bson_iter_t it;
  bson_iter_init(&it, doc);
  while (bson_iter_next(&it)) {
    bool replaced = false;
    for (const std::string& field : fields) replaced = replaced || field == bson_iter_key(&it);
    if (!replaced) bson_append_iter(out.mutable_get(), nullptr, 0, &it);
  }
  for (const std::string& field : fields) {
    bson_append_value(out.mutable_get(), field.data(), static_cast<int>(field.size()), value);
  }
  return out;
}

bson::BsonDoc WithTextScore(const bson_t* doc, const std::vector<std::string>& fields,
                            double score) {
  bson_value_t value;
  value.value_type = BSON_TYPE_DOUBLE;
  value.value.v_double = score;
  return WithMetaValue(doc, fields, &value);
}

}  // namespace tigerdoc::query
