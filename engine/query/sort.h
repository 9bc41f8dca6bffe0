#pragma once
// SortSpec: a parsed sort specification ({a: 1, "b.c": -1}) and the
// memcmp-comparable key that orders documents as MongoDB sorts them.
//
// KeyFor() builds one keystring component per sort field
// (engine/keystring), descending fields inverted, so that
//   memcmp(KeyFor(x), KeyFor(y)) < 0  <=>  x sorts before y.
// The value a document contributes for a field follows MongoDB's sort-key
// rules (the same keys an index on the path would hold):
//  * a missing field, or a path through a scalar, sorts as null;
//  * an array contributes its elements (nested arrays as whole values):
//    ascending sorts by the smallest, descending by the largest;
//  * an empty array sorts as undefined, i.e. below null;
//  * a path through an array of documents collects the field from each
//    element (elements without it count as null); "a.0.b" indexes.
// Ties compare equal; callers add a tiebreak (e.g. the record key) if needed.
//
// Thread-safety: immutable after Parse(); KeyFor() may run concurrently.

#include <bson/bson.h>

#include <string>
#include <vector>

#include <functional>

#include "engine/base/status.h"
#include "engine/bson/field_path.h"
#include "engine/keystring/key_string.h"

namespace tigerdoc::query {

class SortSpec {
 public:
  struct Field {
    bson::FieldPath path;
    keystring::Direction direction;
    // {path: {$meta: "textScore"}}: the document's text score, highest
    // first (the value at `path` plays no part).
    bool text_score = false;
  };

  // Errors as MongoDB: 15974 for a non-number; 15975 for a number whose
  // numberInt() is not 1/-1 (so 1.5 sorts ascending); for documents, 17312
  // unless the first field is $meta, FailedToParse (9) "Cannot have
  // additional keys in a $meta sort specification", 31138 "Illegal $meta
  // sort: $meta: <value>" for names other than textScore, randVal,
  // geoNearDistance, searchScore (textScore sorts by SetTextScorer's
  // scores; the others answer NotImplemented 238); FieldPath errors 40352 (empty), 15998
  // (empty component), 40353 (trailing '.'), 16410 ('$' prefix).
  // With a `collator`, strings sort under it (their keys are collation
  // keys, see keystring); nullptr: binary.
  // `allow_text_score`: textScore fields are accepted (find, whose
  // executor scores them); otherwise they answer NotImplemented as well.
  static StatusWith<SortSpec> Parse(const bson_t* sort, const bson::Collator* collator = nullptr,
                                    bool allow_text_score = false);

  std::string KeyFor(const bson_t* doc) const;
  // Appends to `array` (an array being built) the values `doc` sorts by,
  // one element per sort field, as MongoDB's {$meta: "sortKey"} shows
  // them: a field's smallest (ascending) or largest (descending) value,
  // null when missing, the text score for a textScore field.
  void AppendSortKey(const bson_t* doc, bson_t* array) const;

  // Some field is {$meta: "textScore"}.
  bool has_text_score() const;
  // Where textScore fields get their values. REQUIRES: before KeyFor()
  // when has_text_score().
  void SetTextScorer(std::function<double(const bson_t*)> scorer) { text_scorer_ = std::move(scorer); }

  const std::vector<Field>& fields() const { return fields_; }
  bool empty() const { return fields_.empty(); }
  const bson::Collator* collator() const { return collator_; }

 private:
  bson_value_t ValueFor(const Field& field, const bson_t* doc) const;

  std::vector<Field> fields_;
  const bson::Collator* collator_ = nullptr;
  std::function<double(const bson_t*)> text_scorer_;
};

}  // namespace tigerdoc::query
