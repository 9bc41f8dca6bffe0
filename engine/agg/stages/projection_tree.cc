#include "engine/agg/stages/projection_tree.h"

#include "engine/agg/stages/stage_util.h"

#include <algorithm>

namespace tigerdoc::agg {

struct ProjectionTree::Node {
  enum class Kind { kInclude, kExclude, kExpr, kTree };
  struct Child {
    Kind kind;
    ExpressionPtr expr;
    std::unique_ptr<Node> tree;
  };
  std::vector<std::pair<std::string, Child>> children;

  Child* Find(std::string_view name) {
    for (auto& c : children) {
      if (c.first == name) return &c.second;
    }
    return nullptr;
  }
  const Child* Find(std::string_view name) const {
    for (const auto& c : children) {
      if (c.first == name) return &c.second;
    }
    return nullptr;
  }
  bool HasComputed() const {
    for (const auto& c : children) {
      if (c.second.kind == Kind::kExpr) return true;
      if (c.second.kind == Kind::kTree && c.second.tree->HasComputed()) return true;
    }
    return false;
  }
};

namespace {

using Node = ProjectionTree::Node;
using Kind = Node::Kind;
using Mode = ProjectionTree::Mode;

Status Collision(const std::string& path) {
  return Error(31250, "Path collision at " + path);
}

// Inserts `path` (components) with a leaf child into `root`.
Status Insert(Node* root, const std::vector<std::string>& path, const std::string& dotted,
              Node::Child leaf) {
  Node* node = root;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    Node::Child* c = node->Find(path[i]);
    if (c == nullptr) {
      node->children.emplace_back(path[i], Node::Child{Kind::kTree, nullptr, std::make_unique<Node>()});
      c = &node->children.back().second;
    } else if (c->kind != Kind::kTree) {
      // A field projected whole, then a path below it: MongoDB's 31249.
      std::string rest;
      for (size_t j = i + 1; j < path.size(); ++j) rest += (rest.empty() ? "" : ".") + path[j];
      return Error(31249, "Path collision at " + dotted + " remaining portion " + rest);
    }
    node = c->tree.get();
  }
  if (node->Find(path.back()) != nullptr) return Collision(dotted);
  node->children.emplace_back(path.back(), std::move(leaf));
  return Status::OK();
}

bool IsExpressionObject(const bson_iter_t* it) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) return false;
  bson_t sub = bson::SubDocumentView(it);
  bson_iter_t f;
  return bson_iter_init(&f, &sub) && bson_iter_next(&f) && bson_iter_key(&f)[0] == '$';
}

// Walks a $project spec collecting leaves; nested non-expression objects
// are sub-paths.
Status Collect(const bson_t* spec, const std::string& prefix, ParseContext* ctx, bool add_fields,
               Node* root, int* includes, int* excludes, int* computed, bool* id_set,
               bool* id_included) {
  bson_iter_t it;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    std::string key(bson_iter_key(&it), bson_iter_key_len(&it));
    std::string dotted = prefix.empty() ? key : prefix + "." + key;
    RETURN_IF_ERROR(ValidateFieldPath(key));
    std::vector<std::string> path = SplitPath(dotted);
    if (!add_fields && BSON_ITER_HOLDS_DOCUMENT(&it) && !IsExpressionObject(&it)) {
      bson_t sub = bson::SubDocumentView(&it);
      if (bson_empty(&sub)) {
        return Error(51270, "An empty sub-projection is not a valid value. Found empty object at path");
      }
      RETURN_IF_ERROR(Collect(&sub, dotted, ctx, add_fields, root, includes, excludes, computed,
                              id_set, id_included));
      continue;
    }
    bool is_flag = !add_fields && (BSON_ITER_HOLDS_NUMBER(&it) || BSON_ITER_HOLDS_BOOL(&it));
    if (is_flag) {
      bool include = Value(&it).Truthy();
      if (dotted == "_id") {
        *id_set = true;
        *id_included = include;
        if (include) {
          RETURN_IF_ERROR(Insert(root, path, dotted, Node::Child{Kind::kInclude, nullptr, nullptr}));
        } else {
          RETURN_IF_ERROR(Insert(root, path, dotted, Node::Child{Kind::kExclude, nullptr, nullptr}));
        }
        continue;
      }
      if (include) {
        if (*excludes > 0) {
          return Error(31253, "Cannot do inclusion on field " + dotted + " in exclusion projection");
        }
        ++*includes;
        RETURN_IF_ERROR(Insert(root, path, dotted, Node::Child{Kind::kInclude, nullptr, nullptr}));
      } else {
        if (*includes > 0 || *computed > 0) {
          return Error(31254, "Cannot do exclusion on field " + dotted + " in inclusion projection");
        }
        ++*excludes;
        RETURN_IF_ERROR(Insert(root, path, dotted, Node::Child{Kind::kExclude, nullptr, nullptr}));
      }
      continue;
    }
    if (*excludes > 0) {
      return Error(31252, "Cannot use expression other than $meta in exclusion projection");
    }
    ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, ctx));
    if (dotted == "_id") *id_set = true;
    ++*computed;
    RETURN_IF_ERROR(Insert(root, path, dotted, Node::Child{Kind::kExpr, std::move(e), nullptr}));
  }
  return Status::OK();
}

StatusWith<Value> ApplyNode(const Node& node, const Value& input, Mode mode, Variables* vars);

StatusWith<Value> ApplyToValue(const Node& tree, const Value& v, Mode mode, Variables* vars) {
  if (v.is_document()) return ApplyNode(tree, v, mode, vars);
  if (v.is_array()) {
    std::vector<Value> out;
    for (const Value& e : v.Elements()) {
      if (e.is_document() || e.is_array()) {
        ASSIGN_OR_RETURN(Value r, ApplyToValue(tree, e, mode, vars));
        if (!r.missing()) out.push_back(std::move(r));
      } else if (mode == Mode::kExclusion) {
        out.push_back(e);
      } else if (mode == Mode::kAddFields || tree.HasComputed()) {
        ASSIGN_OR_RETURN(Value r, ApplyNode(tree, Value::Missing(), mode, vars));
        out.push_back(std::move(r));
      }
    }
    return Value::Array(out);
  }
  if (mode == Mode::kExclusion) return v;
  if (mode == Mode::kAddFields || tree.HasComputed()) {
    return ApplyNode(tree, Value::Missing(), mode, vars);
  }
  return Value::Missing();
}

StatusWith<Value> ApplyNode(const Node& node, const Value& input, Mode mode, Variables* vars) {
  std::vector<std::pair<std::string, Value>> out;
  // The spec children the input has. They point into `node`, which outlives
  // this call; the input's field names do not (Fields() returns a temporary).
  std::vector<const Node::Child*> seen;
  if (input.is_document()) {
    for (auto& [name, v] : input.Fields()) {
      const Node::Child* c = node.Find(name);
      if (c != nullptr) seen.push_back(c);
      switch (mode) {
        case Mode::kInclusion:
          if (c == nullptr) break;
          if (c->kind == Kind::kInclude) {
            out.emplace_back(name, std::move(v));
          } else if (c->kind == Kind::kTree) {
            ASSIGN_OR_RETURN(Value r, ApplyToValue(*c->tree, v, mode, vars));
            if (!r.missing()) out.emplace_back(name, std::move(r));
          }
          break;
        case Mode::kExclusion:
          if (c == nullptr || c->kind == Kind::kInclude) {
            out.emplace_back(name, std::move(v));
          } else if (c->kind == Kind::kTree) {
            ASSIGN_OR_RETURN(Value r, ApplyToValue(*c->tree, v, mode, vars));
            out.emplace_back(name, std::move(r));
          }
          break;
        case Mode::kAddFields:
          if (c == nullptr) {
            out.emplace_back(name, std::move(v));
          } else if (c->kind == Kind::kExpr) {
            ASSIGN_OR_RETURN(Value r, c->expr->Evaluate(vars));
            if (!r.missing()) out.emplace_back(name, std::move(r));
          } else if (c->kind == Kind::kTree) {
            ASSIGN_OR_RETURN(Value r, ApplyToValue(*c->tree, v, mode, vars));
            out.emplace_back(name, std::move(r));
          } else if (c->kind != Kind::kExclude) {
            out.emplace_back(name, std::move(v));
          }
          break;
      }
    }
  }
  if (mode == Mode::kExclusion) return MakeDocument(out);
  // Computed fields (and subtrees not present in the input), in spec order.
  for (const auto& [name, c] : node.children) {
    const bool present = std::find(seen.begin(), seen.end(), &c) != seen.end();
    if (c.kind == Kind::kExpr) {
      if (mode == Mode::kAddFields && present) continue;
      ASSIGN_OR_RETURN(Value r, c.expr->Evaluate(vars));
      if (!r.missing()) out.emplace_back(name, std::move(r));
    } else if (c.kind == Kind::kTree && !present &&
               (mode == Mode::kAddFields || c.tree->HasComputed())) {
      ASSIGN_OR_RETURN(Value r, ApplyNode(*c.tree, Value::Missing(), mode, vars));
      out.emplace_back(name, std::move(r));
    }
  }
  return MakeDocument(out);
}

}  // namespace

ProjectionTree::ProjectionTree(Mode mode, std::unique_ptr<Node> root)
    : mode_(mode), root_(std::move(root)) {}
ProjectionTree::ProjectionTree(ProjectionTree&&) noexcept = default;
ProjectionTree& ProjectionTree::operator=(ProjectionTree&&) noexcept = default;
ProjectionTree::~ProjectionTree() = default;

StatusWith<ProjectionTree> ProjectionTree::ParseProject(const bson_t* spec, ParseContext* ctx) {
  if (bson_empty(spec)) {
    return Error(51272, "Invalid $project :: caused by :: projection specification must have at "
                        "least one field");
  }
  auto root = std::make_unique<Node>();
  int includes = 0, excludes = 0, computed = 0;
  bool id_set = false, id_included = true;
  Status st = Collect(spec, "", ctx, false, root.get(), &includes, &excludes, &computed, &id_set,
                      &id_included);
  if (!st.ok()) return st.WithContext("Invalid $project :: caused by :: ");
  bool inclusion = includes > 0 || computed > 0 || (excludes == 0 && id_set && id_included);
  if (inclusion) {
    if (!id_set) {
      root->children.insert(root->children.begin(),
                            {"_id", Node::Child{Kind::kInclude, nullptr, nullptr}});
    }
    // {_id: 0} in an inclusion projection: just not included.
    auto& ch = root->children;
    ch.erase(std::remove_if(ch.begin(), ch.end(),
                            [](const auto& c) { return c.second.kind == Kind::kExclude; }),
             ch.end());
    return ProjectionTree(Mode::kInclusion, std::move(root));
  }
  return ProjectionTree(Mode::kExclusion, std::move(root));
}

namespace {
// $addFields: nested non-expression objects are sub-paths ({a: {b: 1}}
// sets a.b and keeps a's other fields), as in MongoDB.
Status CollectAddFields(const bson_t* spec, const std::string& prefix, ParseContext* ctx,
                        Node* root) {
  bson_iter_t it;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    std::string key(bson_iter_key(&it), bson_iter_key_len(&it));
    RETURN_IF_ERROR(ValidateFieldPath(key));
    std::string dotted = prefix.empty() ? key : prefix + "." + key;
    if (BSON_ITER_HOLDS_DOCUMENT(&it) && !IsExpressionObject(&it)) {
      bson_t sub = bson::SubDocumentView(&it);
      if (!bson_empty(&sub)) {
        RETURN_IF_ERROR(CollectAddFields(&sub, dotted, ctx, root));
        continue;
      }
    }
    ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, ctx));
    RETURN_IF_ERROR(Insert(root, SplitPath(dotted), dotted, Node::Child{Kind::kExpr, std::move(e), nullptr}));
  }
  return Status::OK();
}
}  // namespace

StatusWith<ProjectionTree> ProjectionTree::ParseAddFields(const bson_t* spec, ParseContext* ctx) {
  auto root = std::make_unique<Node>();
  RETURN_IF_ERROR(CollectAddFields(spec, "", ctx, root.get()));
  return ProjectionTree(Mode::kAddFields, std::move(root));
}

StatusWith<ProjectionTree> ProjectionTree::ParseUnset(const std::vector<std::string>& paths) {
  auto root = std::make_unique<Node>();
  for (const std::string& p : paths) {
    RETURN_IF_ERROR(ValidateFieldPath(p));
    RETURN_IF_ERROR(Insert(root.get(), SplitPath(p), p, Node::Child{Kind::kExclude, nullptr, nullptr}));
  }
  return ProjectionTree(Mode::kExclusion, std::move(root));
}

StatusWith<Value> ProjectionTree::Apply(const Value& doc, Variables* vars) const {
  return ApplyNode(*root_, doc, mode_, vars);
}

}  // namespace tigerdoc::agg
