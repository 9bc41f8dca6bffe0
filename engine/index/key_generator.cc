// Index key generation (rules in key_generator.h).
//
// The generator walks all key fields together, level by level, so that
// fields reaching the same array stay correlated:
//
//   Generate(states, obj)
//     for each field not yet fixed: follow its path inside obj through
//       documents until the path ends (value), vanishes (missing) or meets an
//       array (remember it; a second, different array -> 171)
//     no array      -> emit one key from the fixed values
//     empty array   -> fields ending at it become undefined; the rest
//                      continue inside {} (so: missing)
//     else, per element e: fields ending at the array take e; the rest
//                      continue inside e (when e is a document, else {})

#include "engine/index/key_generator.h"

#include <map>

#include "engine/index/text_keys.h"
#include "engine/index/wildcard.h"
#include "engine/keystring/key_string.h"
#include "engine/storage/shard_router.h"

namespace tigerdoc::index {
namespace {

constexpr ErrorCode kHashedArrayCode = static_cast<ErrorCode>(16766);

enum class SlotKind { kUnset, kMissing, kValue, kUndefined };

struct FieldState {
  size_t pos = 0;  // next path component to follow
  SlotKind kind = SlotKind::kUnset;
  bson_iter_t value{};  // valid when kind == kValue
};

enum class Found { kMissing, kValue, kArray };

struct Extracted {
  Found found = Found::kMissing;
  bson_iter_t it{};
  size_t pos = 0;  // components consumed, including an array's own component
};

// An array as MongoDB prints it in messages: a document keyed "0", "1", ...
std::string ArrayAsJson(const bson_iter_t* array) {
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_array(array, &len, &data);
  bson_t doc;
  if (data == nullptr || !bson_init_static(&doc, data, len)) return "[]";
  char* json = bson_as_relaxed_extended_json(&doc, nullptr);
  std::string out = json ? json : "";
  bson_free(json);
  return out;
}

const bson_t* EmptyDocument() {
  static const bson_t* const empty = bson_new();
  return empty;
}

// Follows `path` from component `pos` inside `obj` until its end, a
// missing component, or an array to expand (see the header for positional
// paths). A positional component selects that element; when the element is
// itself an array and the path goes on, it continues through it as through
// any array (the matcher reads {"a.0.b": x} over {a: [[{b: x}]]} as the b of
// a[0]'s elements), so it is expanded, never dropped. Sets `ambiguous` when an element of an array that a
// positional component indexes is a document holding a field of that name
// (MongoDB refuses such documents: 16746).
Extracted Extract(const bson_t* obj, const bson::FieldPath& path, size_t pos, Status* ambiguous) {
  Extracted out;
  bson_t current;
  bson_init_static(&current, bson_get_data(obj), obj->len);
  for (;;) {
    const std::string& component = path.part(pos);
    bson_iter_t it;
    if (!bson_iter_init(&it, &current) ||
        !bson_iter_find_w_len(&it, component.data(), static_cast<int>(component.size()))) {
      return out;  // missing
    }
    ++pos;
    while (BSON_ITER_HOLDS_ARRAY(&it) && pos < path.size()) {
      const std::string& next = path.part(pos);
      std::optional<size_t> index = bson::ParseArrayIndex(next);
      if (!index) break;
      bson_iter_t element;
      if (!bson_iter_recurse(&it, &element)) return out;
      size_t i = 0;
      bool found = false;
      bson_iter_t selected{};
      bool element_has_field = false;
      while (bson_iter_next(&element)) {
        if (!found && i == *index) {
          found = true;
          selected = element;
        }
        ++i;
        bson_iter_t field;
        if (BSON_ITER_HOLDS_DOCUMENT(&element) && bson_iter_recurse(&element, &field) &&
            bson_iter_find_w_len(&field, next.data(), static_cast<int>(next.size()))) {
          element_has_field = true;
        }
      }
      if (found && element_has_field) {
        *ambiguous = Status(
              static_cast<ErrorCode>(16746),
              "Ambiguous field name found in array (do not use numeric field names in embedded "
              "elements in an array), field: '" +
                next + "' for array: " + ArrayAsJson(&it));
        return out;
      }
      // No such element: the component names a field of the elements
      // ({"a.5"} over {a: [{"5": 1}]}), so the array is expanded.
      if (!found) break;
      it = selected;
      ++pos;
      if (pos == path.size()) {
        // A path ending at a position is the element itself, an array kept
        // whole as the matcher compares it ({"a.0": [1, 2]} over
        // {a: [[1, 2]]}; {"a.0": 1} does not match it).
        out.found = Found::kValue;
        out.it = it;
        out.pos = pos;
        return out;
      }
    }
    if (BSON_ITER_HOLDS_ARRAY(&it)) {
      out.found = Found::kArray;
      out.it = it;
      out.pos = pos;
      return out;
    }
    if (pos == path.size()) {
      out.found = Found::kValue;
      out.it = it;
      out.pos = pos;
      return out;
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return out;  // scalar with path left
    bson_t sub;
    if (!bson::OpenSubdocument(&it, &sub)) return out;
    current = sub;
  }
}

const uint8_t* ArrayData(const bson_iter_t* it) {
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_array(it, &len, &data);
  return data;
}

class Generator {
 public:
  Generator(const IndexSpec& spec, DocumentKeys* out) : spec_(spec), out_(out) {
    out_->multikey_paths.assign(spec.fields.size(), {});
  }

  Status Run(const bson_t* doc) {
    std::vector<FieldState> states(spec_.fields.size());
    RETURN_IF_ERROR(Generate(std::move(states), doc));
    out_->keys.reserve(keys_.size());
    for (auto& [encoded, values] : keys_) {
      out_->keys.push_back(IndexKey{encoded, std::move(values)});
    }
    return Status::OK();
  }

 private:
  Status Generate(std::vector<FieldState> states, const bson_t* obj) {
    std::vector<size_t> array_fields;
    bson_iter_t array_it{};
    const uint8_t* array_data = nullptr;
    for (size_t i = 0; i < states.size(); ++i) {
      FieldState& state = states[i];
      if (state.kind != SlotKind::kUnset) continue;
      const IndexField& field = spec_.fields[i];
      Status ambiguous = Status::OK();
      Extracted found = Extract(obj, field.path, state.pos, &ambiguous);
      RETURN_IF_ERROR(ambiguous);
      switch (found.found) {
        case Found::kMissing:
          state.kind = SlotKind::kMissing;
          break;
        case Found::kValue:
          state.kind = SlotKind::kValue;
          state.value = found.it;
          break;
        case Found::kArray: {
          if (field.hashed) {
            return Status(kHashedArrayCode,
                          "hashed indexes do not currently support array values. Found array at "
                          "path: " +
                              field.path.dotted());
          }
          const uint8_t* data = ArrayData(&found.it);
          if (array_data == nullptr) {
            array_data = data;
            array_it = found.it;
          } else if (data != array_data) {
            return Status(ErrorCode::kCannotIndexParallelArrays,
                          std::string("cannot index parallel arrays [") +
                              bson_iter_key(&found.it) + "] [" + bson_iter_key(&array_it) + "]");
          }
          out_->multikey = true;
          out_->multikey_paths[i].insert(found.pos - 1);
          state.pos = found.pos;
          array_fields.push_back(i);
          break;
        }
      }
    }
    if (array_fields.empty()) return Emit(states);

    bson_iter_t element;
    bool empty = true;
    if (bson_iter_recurse(&array_it, &element)) {
      bson_iter_t probe = element;
      empty = !bson_iter_next(&probe);
    }
    if (empty) {
      for (size_t i : array_fields) {
        if (states[i].pos == spec_.fields[i].path.size()) states[i].kind = SlotKind::kUndefined;
      }
      return Generate(std::move(states), EmptyDocument());
    }
    while (bson_iter_next(&element)) {
      std::vector<FieldState> copy = states;
      for (size_t i : array_fields) {
        if (copy[i].pos == spec_.fields[i].path.size()) {
          copy[i].kind = SlotKind::kValue;
          copy[i].value = element;
        }
      }
      bson_t sub;
      const bson_t* next = EmptyDocument();
      if (BSON_ITER_HOLDS_DOCUMENT(&element) && bson::OpenSubdocument(&element, &sub)) next = &sub;
      RETURN_IF_ERROR(Generate(std::move(copy), next));
    }
    return Status::OK();
  }

  Status Emit(const std::vector<FieldState>& states) {
    if (spec_.sparse) {
      bool all_missing = true;
      for (const FieldState& s : states) all_missing = all_missing && s.kind == SlotKind::kMissing;
      if (all_missing) return Status::OK();
    }
    keystring::KeyBuilder builder(spec_.collator);
    bson::BsonDoc values;
    for (size_t i = 0; i < states.size(); ++i) {
      const IndexField& field = spec_.fields[i];
      const FieldState& s = states[i];
      const std::string& name = field.path.dotted();
      if (field.hashed) {
        bson_value_t hash;
        hash.value_type = BSON_TYPE_INT64;
        hash.value.v_int64 =
            HashIndexValue(s.kind == SlotKind::kValue ? bson_iter_value(
                                                            const_cast<bson_iter_t*>(&s.value))
                                                      : nullptr,
                           spec_.collator);
        builder.Append(&hash, field.dir);
        bson_append_value(values.mutable_get(), name.data(), static_cast<int>(name.size()), &hash);
        continue;
      }
      switch (s.kind) {
        case SlotKind::kValue:
          builder.Append(&s.value, field.dir);
          bson_append_iter(values.mutable_get(), name.data(), static_cast<int>(name.size()),
                           &s.value);
          break;
        case SlotKind::kUndefined: {
          bson_value_t undefined;
          undefined.value_type = BSON_TYPE_UNDEFINED;
          builder.Append(&undefined, field.dir);
          bson_append_undefined(values.mutable_get(), name.data(), static_cast<int>(name.size()));
          break;
        }
        case SlotKind::kMissing:
        case SlotKind::kUnset:
          builder.AppendNull(field.dir);
          break;
      }
    }
    keys_.emplace(builder.Release(), std::move(values));
    return Status::OK();
  }

  const IndexSpec& spec_;
  DocumentKeys* out_;
  std::map<std::string, bson::BsonDoc> keys_;  // first occurrence of each key wins
};

}  // namespace

StatusWith<DocumentKeys> GenerateKeys(const IndexSpec& spec, const bson_t* doc) {
  DocumentKeys out;
  if (spec.partial_matcher && !spec.partial_matcher->Matches(doc)) {
    out.multikey_paths.assign(spec.fields.size(), {});
    return out;
  }
  // A text index refuses documents whose language field it cannot read.
  if (spec.text) RETURN_IF_ERROR(spec.text->CheckLanguageOverrides(doc));
  if (spec.text && spec.fts_term_keys) {
    RETURN_IF_ERROR(GenerateTextKeys(spec, doc, &out));
    return out;
  }
  if (spec.wildcard) {
    out.multikey_paths.assign(spec.fields.size(), {});
    RETURN_IF_ERROR(GenerateWildcardKeys(spec, doc, &out));
    return out;
  }
  Generator generator(spec, &out);
  RETURN_IF_ERROR(generator.Run(doc));
  return out;
}

int64_t HashIndexValue(const bson_value_t* value, const bson::Collator* collator) {
  keystring::KeyBuilder builder(collator);
  if (value == nullptr) {
    builder.AppendNull();
  } else {
    builder.Append(value);
  }
  return static_cast<int64_t>(storage::ShardHashV1(builder.bytes()));
}

}  // namespace tigerdoc::index
