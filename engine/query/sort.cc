#include "engine/query/sort.h"

#include <cmath>
#include <cstring>
#include <optional>

#include "engine/bson/compare.h"
#include "engine/bson/shell_string.h"
#include "engine/query/matcher/integer_argument.h"

namespace tigerdoc::query {
namespace {

Status CheckSortPath(const std::string& path) {
  if (path.empty()) {
    return Status(ErrorCode::kLocation40352, "FieldPath cannot be constructed with empty string");
  }
  bson::FieldPath fp(path);
  for (size_t i = 0; i < fp.size(); ++i) {
    if (fp.part(i).empty()) {
      if (i + 1 == fp.size()) {
        return Status(static_cast<ErrorCode>(40353), "FieldPath must not end with a '.'.");
      }
      return Status(static_cast<ErrorCode>(15998), "FieldPath field names may not be empty strings.");
    }
    if (fp.part(i)[0] == '$') {
      return Status(static_cast<ErrorCode>(16410),
                    "FieldPath field names may not start with '$'. Consider using $getField or "
                    "$setField.");
    }
  }
  return Status::OK();
}

// {field: {$meta: ...}}: SortPattern's checks in MongoDB's order. OK for
// textScore; the other valid names need metadata (random value, search
// scores) tigerdoc does not produce, so they answer NotImplemented.
Status ParseMetaSort(const bson_iter_t* it, bool allow_text_score) {
  bson_t meta_doc;
  bson::OpenSubdocument(it, &meta_doc);
  bson_iter_t meta;
  if (!bson_iter_init(&meta, &meta_doc) || !bson_iter_next(&meta) ||
      std::strcmp(bson_iter_key(&meta), "$meta") != 0) {
    return Status(static_cast<ErrorCode>(17312),
                  "$meta is the only expression supported by $sort right now");
  }
  if (bson_count_keys(&meta_doc) != 1) {
    return Status(ErrorCode::kFailedToParse,
                  "Cannot have additional keys in a $meta sort specification");
  }
  const char* name = BSON_ITER_HOLDS_UTF8(&meta) ? bson_iter_utf8(&meta, nullptr) : "";
  static constexpr const char* kValidMetaSorts[] = {"textScore", "randVal", "geoNearDistance",
                                                    "searchScore"};
  if (std::strcmp(name, "textScore") == 0 && allow_text_score) return Status::OK();
  for (const char* valid : kValidMetaSorts) {
    if (std::strcmp(name, valid) == 0) {
      return Status(ErrorCode::kNotImplemented,
                    std::string("$meta sort by '") + name + "' is not supported by tigerdoc yet");
    }
  }
  return Status(static_cast<ErrorCode>(31138),
                "Illegal $meta sort: $meta: " + bson::ToShellString(&meta));
}

// A candidate sort value: a pointer into the document, or null/undefined.
struct Candidate {
  enum Kind { kValue, kNull, kUndefined } kind;
  bson_value_t value;  // kValue only (points into the document)
};

// The value to compare a candidate as (null and undefined synthesised).
bson_value_t AsValue(const Candidate& c) {
  if (c.kind == Candidate::kValue) return c.value;
  bson_value_t v;
  v.value_type = c.kind == Candidate::kNull ? BSON_TYPE_NULL : BSON_TYPE_UNDEFINED;
  return v;
}

// Undefined (from []) sorts below null whatever compare.cc thinks of it.
int CompareCandidates(const Candidate& a, const Candidate& b, const bson::Collator* collator) {
  auto rank = [](const Candidate& c) { return c.kind == Candidate::kUndefined ? 0 : 1; };
  if (rank(a) != rank(b)) return rank(a) - rank(b);
  if (rank(a) == 0) return 0;
  bson_value_t va = AsValue(a), vb = AsValue(b);
  return bson::CompareValues(&va, &vb, collator);
}

class Collector {
 public:
  Collector(bool want_max, const bson::Collator* collator)
      : want_max_(want_max), collator_(collator) {}

  void Offer(const Candidate& c) {
    if (!best_ || (want_max_ ? CompareCandidates(c, *best_, collator_) > 0
                             : CompareCandidates(c, *best_, collator_) < 0)) {
      best_ = c;
    }
  }
  void OfferNull() { Offer(Candidate{Candidate::kNull, {}}); }
  void OfferIter(const bson_iter_t* it) {
    Candidate c{Candidate::kValue, *bson_iter_value(const_cast<bson_iter_t*>(it))};
    Offer(c);
  }
  // A value at the end of the path: arrays contribute their elements.
  void OfferLeaf(const bson_iter_t* it) {
    if (!BSON_ITER_HOLDS_ARRAY(it)) return OfferIter(it);
    bson_iter_t elements;
    bson_iter_recurse(it, &elements);
    bool any = false;
    while (bson_iter_next(&elements)) {
      any = true;
      OfferIter(&elements);
    }
    if (!any) Offer(Candidate{Candidate::kUndefined, {}});
  }
  const std::optional<Candidate>& best() const { return best_; }

 private:
  bool want_max_;
  const bson::Collator* collator_;
  std::optional<Candidate> best_;
};

void Collect(const bson_t* doc, const bson::FieldPath& path, size_t i, Collector* out);

// `it` is the value found at component i (not the last) of `path`.
void CollectBelow(const bson_iter_t* it, const bson::FieldPath& path, size_t i, Collector* out) {
  if (BSON_ITER_HOLDS_DOCUMENT(it)) {
    bson_t sub;
    bson::OpenSubdocument(it, &sub);
    return Collect(&sub, path, i + 1, out);
  }
  if (!BSON_ITER_HOLDS_ARRAY(it)) return out->OfferNull();
  bson_iter_t elements;
  bson_iter_recurse(it, &elements);
  if (auto index = bson::ParseArrayIndex(path.part(i + 1))) {
    // Positional component: the element at that index, not a traversal.
    const std::string& key = path.part(i + 1);
    while (bson_iter_next(&elements)) {
      if (key == bson_iter_key(&elements)) {
        if (i + 2 == path.size()) return out->OfferLeaf(&elements);
        return CollectBelow(&elements, path, i + 1, out);
      }
    }
    return out->OfferNull();
  }
  bool any = false;
  while (bson_iter_next(&elements)) {
    any = true;
    if (BSON_ITER_HOLDS_DOCUMENT(&elements)) {
      bson_t sub;
      bson::OpenSubdocument(&elements, &sub);
      Collect(&sub, path, i + 1, out);
    } else {
      out->OfferNull();
    }
  }
  if (!any) out->OfferNull();
}

void Collect(const bson_t* doc, const bson::FieldPath& path, size_t i, Collector* out) {
  bson_iter_t it;
  const std::string& name = path.part(i);
  if (!bson_iter_init(&it, doc) ||
      !bson_iter_find_w_len(&it, name.data(), static_cast<int>(name.size()))) {
    return out->OfferNull();
  }
  if (i + 1 == path.size()) return out->OfferLeaf(&it);
  CollectBelow(&it, path, i, out);
}

}  // namespace

StatusWith<SortSpec> SortSpec::Parse(const bson_t* sort, const bson::Collator* collator,
                                     bool allow_text_score) {
  SortSpec spec;
  spec.collator_ = collator;
  bson_iter_t it;
  bson_iter_init(&it, sort);
  while (bson_iter_next(&it)) {
    const std::string name = bson_iter_key(&it);
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      RETURN_IF_ERROR(ParseMetaSort(&it, allow_text_score));
      RETURN_IF_ERROR(CheckSortPath(name));
      spec.fields_.push_back(
          Field{bson::FieldPath(name), keystring::Direction::kDescending, /*text_score=*/true});
      continue;
    }
    if (!IsNumber(&it)) {
      return Status(static_cast<ErrorCode>(15974), "Illegal key in $sort specification: " +
                                                       name + ": " + bson::ToShellString(&it));
    }
    // BSONElement::numberInt(): 1.5 is 1 (ascending), 0.5 is 0 (refused).
    const int32_t direction = NumberInt(&it);
    if (direction != 1 && direction != -1) {
      return Status(static_cast<ErrorCode>(15975),
                    "$sort key ordering must be 1 (for ascending) or -1 (for descending)");
    }
    RETURN_IF_ERROR(CheckSortPath(name));
    spec.fields_.push_back(Field{bson::FieldPath(name), direction == 1
                                                            ? keystring::Direction::kAscending
                                                            : keystring::Direction::kDescending});
  }
  return spec;
}

// The value `field` sorts `doc` by: its text score, or the path's
// smallest (ascending) / largest (descending) candidate; it may point into
// `doc`.
bson_value_t SortSpec::ValueFor(const Field& field, const bson_t* doc) const {
  if (field.text_score) {
    bson_value_t score;
    score.value_type = BSON_TYPE_DOUBLE;
    score.value.v_double = text_scorer_ ? text_scorer_(doc) : 0.0;
    return score;
  }
  Collector collector(field.direction == keystring::Direction::kDescending, collator_);
  Collect(doc, field.path, 0, &collector);
  return AsValue(*collector.best());  // Collect always offers something
}

std::string SortSpec::KeyFor(const bson_t* doc) const {
  keystring::KeyBuilder key(collator_);
  for (const Field& field : fields_) {
    bson_value_t value = ValueFor(field, doc);
    key.Append(&value, field.direction);
  }
  return key.Release();
}

void SortSpec::AppendSortKey(const bson_t* doc, bson_t* array) const {
  char index[16];
  for (size_t i = 0; i < fields_.size(); ++i) {
    const char* key = nullptr;
    const size_t len = bson_uint32_to_string(static_cast<uint32_t>(i), &key, index, sizeof index);
    bson_value_t value = ValueFor(fields_[i], doc);
    bson_append_value(array, key, static_cast<int>(len), &value);
  }
}

bool SortSpec::has_text_score() const {
  for (const Field& field : fields_) {
    if (field.text_score) return true;
  }
  return false;
}

}  // namespace tigerdoc::query
