#include "engine/query/projection.h"

#include <cstring>
#include <optional>

#include "engine/bson/field_path.h"

namespace tigerdoc::query {

const Projection::Node* Projection::Node::Find(std::string_view name) const {
  for (const auto& [child_name, child] : children) {
    if (child_name == name) return child.get();
  }
  return nullptr;
}

namespace {

using Node = Projection::Node;

struct ParseState {
  std::optional<bool> inclusion;  // decided by the first non-_id field
  bool id_specified = false;
  bool id_included = true;
  std::vector<std::string> paths;  // non-_id leaves, in spec order
};

bool IsTruthyNumberOrBool(const bson_iter_t* it) {
  switch (bson_iter_type(it)) {
    case BSON_TYPE_BOOL: return bson_iter_bool(it);
    case BSON_TYPE_INT32: return bson_iter_int32(it) != 0;
    case BSON_TYPE_INT64: return bson_iter_int64(it) != 0;
    case BSON_TYPE_DOUBLE: return bson_iter_double(it) != 0;
    default: {  // decimal128: zero coefficient means false
      bson_decimal128_t d;
      bson_iter_decimal128(it, &d);
      return !(d.low == 0 && (d.high & 0x0001FFFFFFFFFFFFull) == 0);
    }
  }
}

Status CheckPath(const std::string& path) {
  if (path.empty()) {
    return Status(ErrorCode::kLocation40352, "FieldPath cannot be constructed with empty string");
  }
  bson::FieldPath fp(path);
  for (size_t i = 0; i < fp.size(); ++i) {
    const std::string& part = fp.part(i);
    if (part.empty()) {
      if (i + 1 == fp.size()) {
        return Status(static_cast<ErrorCode>(40353), "FieldPath must not end with a '.'.");
      }
      return Status(static_cast<ErrorCode>(15998), "FieldPath field names may not be empty strings.");
    }
    if (part == "$") {
      return Status(ErrorCode::kNotImplemented,
                    "positional projection (\"" + path + "\") is not supported by tigerdoc yet");
    }
    if (part[0] == '$') {
      return Status(static_cast<ErrorCode>(16410),
                    "FieldPath field names may not start with '$'. Consider using $getField or "
                    "$setField.");
    }
  }
  return Status::OK();
}

Status ParseSpec(const bson_t* spec, const std::string& prefix, ParseState* state) {
  bson_iter_t it;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    const std::string name = bson_iter_key(&it);
    const std::string path = prefix.empty() ? name : prefix + "." + name;
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_t sub;
      bson::OpenSubdocument(&it, &sub);
      bson_iter_t first;
      if (!bson_iter_init(&first, &sub) || !bson_iter_next(&first)) {
        return Status(static_cast<ErrorCode>(51270),
                      "An empty sub-projection is not a valid value. Found empty object at path");
      }
      if (bson_iter_key(&first)[0] == '$') {
        return Status(ErrorCode::kNotImplemented,
                      std::string("projection operator ") + bson_iter_key(&first) +
                          " is not supported by tigerdoc yet");
      }
      RETURN_IF_ERROR(CheckPath(path));
      RETURN_IF_ERROR(ParseSpec(&sub, path, state));
      continue;
    }
    RETURN_IF_ERROR(CheckPath(path));
    const bson_type_t type = bson_iter_type(&it);
    if (type != BSON_TYPE_BOOL && type != BSON_TYPE_INT32 && type != BSON_TYPE_INT64 &&
        type != BSON_TYPE_DOUBLE && type != BSON_TYPE_DECIMAL128) {
      return Status(ErrorCode::kNotImplemented,
                    "computed projection fields (\"" + path + "\") are not supported by tigerdoc yet");
    }
    const bool include = IsTruthyNumberOrBool(&it);
    if (path == "_id") {
      state->id_specified = true;
      state->id_included = include;
      continue;
    }
    if (!state->inclusion) {
      state->inclusion = include;
    } else if (*state->inclusion && !include) {
      return Status(ErrorCode::kLocation31254,
                    "Cannot do exclusion on field " + path + " in inclusion projection");
    } else if (!*state->inclusion && include) {
      return Status(static_cast<ErrorCode>(31253),
                    "Cannot do inclusion on field " + path + " in exclusion projection");
    }
    state->paths.push_back(path);
  }
  return Status::OK();
}

Status AddPath(Node* root, const std::string& path) {
  bson::FieldPath fp(path);
  Node* node = root;
  for (size_t i = 0; i < fp.size(); ++i) {
    Node* next = nullptr;
    for (auto& [name, child] : node->children) {
      if (name == fp.part(i)) next = child.get();
    }
    const bool last = i + 1 == fp.size();
    if (next != nullptr) {
      if (last) return Status(static_cast<ErrorCode>(31250), "Path collision at " + path);
      if (next->leaf) {
        return Status(static_cast<ErrorCode>(31249),
                      "Path collision at " + path + " remaining portion " + fp.Suffix(i + 1));
      }
    } else {
      node->children.emplace_back(fp.part(i), std::make_unique<Node>());
      next = node->children.back().second.get();
      next->leaf = last;
    }
    node = next;
  }
  return Status::OK();
}

void ApplyToDocument(const bson_t* in, const Node& node, bool inclusion, bson_t* out);

// Arrays met on a projected path: apply to each element. Inclusion keeps
// documents (projected) and arrays (recursively) and drops scalars;
// exclusion keeps every element, projecting documents and arrays.
void ApplyToArray(const bson_t* in, const Node& node, bool inclusion, bson_t* out) {
  bson_iter_t it;
  bson_iter_init(&it, in);
  uint32_t index = 0;
  while (bson_iter_next(&it)) {
    char key_buf[16];
    const char* key = nullptr;
    bson_uint32_to_string(index, &key, key_buf, sizeof(key_buf));
    if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
      const bool is_array = BSON_ITER_HOLDS_ARRAY(&it);
      bson_t sub_in;
      bson::OpenSubdocument(&it, &sub_in);
      bson_t sub_out;
      if (is_array) {
        bson_append_array_begin(out, key, -1, &sub_out);
        ApplyToArray(&sub_in, node, inclusion, &sub_out);
        bson_append_array_end(out, &sub_out);
      } else {
        bson_append_document_begin(out, key, -1, &sub_out);
        ApplyToDocument(&sub_in, node, inclusion, &sub_out);
        bson_append_document_end(out, &sub_out);
      }
      ++index;
    } else if (!inclusion) {
      bson_append_iter(out, key, -1, &it);
      ++index;
    }
  }
}

void ApplyToDocument(const bson_t* in, const Node& node, bool inclusion, bson_t* out) {
  bson_iter_t it;
  bson_iter_init(&it, in);
  while (bson_iter_next(&it)) {
    const char* key = bson_iter_key(&it);
    const Node* child = node.Find(key);
    if (child == nullptr) {
      if (!inclusion) bson_append_iter(out, key, -1, &it);
      continue;
    }
    if (child->leaf) {
      if (inclusion) bson_append_iter(out, key, -1, &it);
      continue;
    }
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_t sub_in, sub_out;
      bson::OpenSubdocument(&it, &sub_in);
      bson_append_document_begin(out, key, -1, &sub_out);
      ApplyToDocument(&sub_in, *child, inclusion, &sub_out);
      bson_append_document_end(out, &sub_out);
    } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
      bson_t sub_in, sub_out;
      bson::OpenSubdocument(&it, &sub_in);
      bson_append_array_begin(out, key, -1, &sub_out);
      ApplyToArray(&sub_in, *child, inclusion, &sub_out);
      bson_append_array_end(out, &sub_out);
    } else if (!inclusion) {
      // A scalar where the spec expects a document: nothing to exclude.
      bson_append_iter(out, key, -1, &it);
    }
  }
}

}  // namespace

StatusWith<Projection> Projection::Parse(const bson_t* spec) {
  ParseState state;
  RETURN_IF_ERROR(ParseSpec(spec, "", &state));
  // Only _id given: {_id: 1} is an inclusion, {_id: 0} an exclusion; the
  // empty spec {} is an exclusion of nothing (the whole document).
  const bool inclusion = state.inclusion.value_or(state.id_specified && state.id_included);
  auto root = std::make_unique<Node>();
  if (inclusion && state.id_included) RETURN_IF_ERROR(AddPath(root.get(), "_id"));
  if (!inclusion && !state.id_included) RETURN_IF_ERROR(AddPath(root.get(), "_id"));
  for (const std::string& path : state.paths) RETURN_IF_ERROR(AddPath(root.get(), path));
  return Projection(inclusion, std::move(root));
}

bson::BsonDoc Projection::Apply(const bson_t* doc) const {
  bson::BsonDoc out;
  ApplyToDocument(doc, *root_, inclusion_, out.mutable_get());
  return out;
}

}  // namespace tigerdoc::query
