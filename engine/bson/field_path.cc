#include "engine/bson/field_path.h"

#include <limits>

namespace tigerdoc::bson {

FieldPath::FieldPath(std::string_view dotted) : dotted_(dotted) {
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    if (dot == std::string_view::npos) {
      parts_.emplace_back(dotted.substr(start));
      break;
    }
    parts_.emplace_back(dotted.substr(start, dot - start));
    start = dot + 1;
  }
}

std::string FieldPath::Suffix(size_t from) const {
  std::string out;
  for (size_t i = from; i < parts_.size(); ++i) {
    if (i > from) out.push_back('.');
    out += parts_[i];
  }
  return out;
}

std::string FieldPath::Prefix(size_t to) const {
  std::string out;
  for (size_t i = 0; i < to && i < parts_.size(); ++i) {
    if (i > 0) out.push_back('.');
    out += parts_[i];
  }
  return out;
}

bool FieldPath::IsPrefixOf(const FieldPath& other) const {
  if (parts_.size() > other.parts_.size()) return false;
  for (size_t i = 0; i < parts_.size(); ++i) {
    if (parts_[i] != other.parts_[i]) return false;
  }
  return true;
}

std::optional<size_t> ParseArrayIndex(std::string_view component) {
  if (component.empty()) return std::nullopt;
  size_t value = 0;
  for (char c : component) {
    if (c < '0' || c > '9') return std::nullopt;
    size_t digit = static_cast<size_t>(c - '0');
    if (value > (std::numeric_limits<size_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

bool OpenSubdocument(const bson_iter_t* it, bson_t* view) {
  const uint8_t* data = nullptr;
  uint32_t len = 0;
  if (BSON_ITER_HOLDS_DOCUMENT(it)) {
    bson_iter_document(it, &len, &data);
  } else if (BSON_ITER_HOLDS_ARRAY(it)) {
    bson_iter_array(it, &len, &data);
  } else {
    return false;
  }
  return bson_init_static(view, data, len);
}

namespace {

// True when `name` (an array element's field name) equals `component`,
// which must be all digits: MongoDB's "array offset match".
bool IsOffsetMatch(const bson_iter_t* element, const std::string& component, bool is_number) {
  return is_number && component == bson_iter_key(element);
}

bool VisitArray(const bson_iter_t* array, const FieldPath& path, size_t array_index,
                LeafArrays leaf_arrays, const PathVisitor& visit);

// MongoDB's getFieldDottedOrArray followed by the iterator's first step:
// walk documents until the path ends, goes missing, or meets an array.
bool WalkFrom(const bson_t* doc, const FieldPath& path, size_t start, LeafArrays leaf_arrays,
              const PathVisitor& visit) {
  bson_t current_view;
  const bson_t* current = doc;
  for (size_t i = start; i < path.size(); ++i) {
    bson_iter_t it;
    const std::string& name = path.part(i);
    if (!bson_iter_init(&it, current) ||
        !bson_iter_find_w_len(&it, name.data(), static_cast<int>(name.size()))) {
      return visit(nullptr);
    }
    const bool last = i + 1 == path.size();
    if (BSON_ITER_HOLDS_ARRAY(&it)) return VisitArray(&it, path, i, leaf_arrays, visit);
    if (last) return visit(&it);
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return visit(nullptr);
    if (!OpenSubdocument(&it, &current_view)) return visit(nullptr);
    current = &current_view;
  }
  // Only reached when start == path.size(): nothing to look up.
  return visit(nullptr);
}

// `array` was found at component `array_index` of `path`.
bool VisitArray(const bson_iter_t* array, const FieldPath& path, size_t array_index,
                LeafArrays leaf_arrays, const PathVisitor& visit) {
  const bool at_leaf = array_index + 1 == path.size();
  if (at_leaf && leaf_arrays == LeafArrays::kNoTraversal) return visit(array);

  bson_iter_t elements;
  if (!bson_iter_recurse(array, &elements)) return true;

  if (at_leaf) {
    while (bson_iter_next(&elements)) {
      if (!visit(&elements)) return false;
    }
    return visit(array);
  }

  const std::string& next = path.part(array_index + 1);
  const bool next_is_number = ParseArrayIndex(next).has_value();
  const bool next_is_last = array_index + 2 == path.size();
  while (bson_iter_next(&elements)) {
    const bool offset_match = IsOffsetMatch(&elements, next, next_is_number);
    if (BSON_ITER_HOLDS_DOCUMENT(&elements)) {
      bson_t sub;
      if (OpenSubdocument(&elements, &sub) &&
          !WalkFrom(&sub, path, array_index + 1, leaf_arrays, visit)) {
        return false;
      }
      if (offset_match) {
        if (next_is_last) {
          if (!visit(&elements)) return false;
        } else if (OpenSubdocument(&elements, &sub) &&
                   !WalkFrom(&sub, path, array_index + 2, leaf_arrays, visit)) {
          return false;
        }
      }
    } else if (offset_match) {
      if (next_is_last) {
        // The path ends at an explicit index: the element itself, arrays
        // not expanded (this is not an implicit traversal).
        if (!visit(&elements)) return false;
      } else if (BSON_ITER_HOLDS_ARRAY(&elements)) {
        // a.0.b where a[0] is an array: continue as if that array had been
        // found at the index component.
        if (!VisitArray(&elements, path, array_index + 1, leaf_arrays, visit)) return false;
      }
    }
  }
  return true;
}

}  // namespace

bool VisitPathFrom(const bson_t* doc, const FieldPath& path, size_t start,
                   LeafArrays leaf_arrays, const PathVisitor& visit) {
  return WalkFrom(doc, path, start, leaf_arrays, visit);
}

bool VisitPath(const bson_t* doc, const FieldPath& path, LeafArrays leaf_arrays,
               const PathVisitor& visit) {
  return WalkFrom(doc, path, 0, leaf_arrays, visit);
}

}  // namespace tigerdoc::bson
