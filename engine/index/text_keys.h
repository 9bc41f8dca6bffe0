#pragma once
// Text index keys (MongoDB's FTSIndexFormat, textIndexVersion 3): one entry
// per distinct term of a document, so $text reads the documents of a term
// from the index instead of scanning the collection.
//
// Key grammar (keystring components, in key-pattern order):
//   text key := prefix-value*  term  score  suffix-value*
//   prefix-value, suffix-value : the value of each non-text key field
//                  (before / after the text fields), in the field's
//                  direction, under the index collation; missing = null
//   term         : the stemmed, case- and diacritic-folded term as a
//                  string, binary (never collated: it is looked up exactly)
//   score        : the document's score for the term (fts_spec.h) as a
//                  double, DESCENDING, so a term's entries read from the
//                  highest score down (MongoDB scans them backward)
// Key values (the entry's BSON): {<prefix fields>..., _fts: term,
// _ftsx: score, <suffix fields>...}.
//
// A document without indexable text has no entry. A non-text key field
// must not hold an array anywhere along its path (a positional component
// "a.0" selects an element): CannotBuildIndexKeys (201) "Field '<path>' of
// text index contains an array in document: <document>".
//
// Text indexes created before this format (IndexSpec::fts_term_keys
// false) hold one null entry per document; their keys still come from the
// generic generator, and $text over them scans the collection.
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/index/key_generator.h"

namespace tigerdoc::index {

// REQUIRES: spec.text and spec.fts_term_keys.
Status GenerateTextKeys(const IndexSpec& spec, const bson_t* doc, DocumentKeys* out);

// The key prefix every entry of `term` shares, given one value per prefix
// field (the equalities the query fixes, in key-pattern order): a term's
// entries are the range [prefix, keystring::PrefixSuccessor(prefix)).
// REQUIRES: prefix_values.size() == number of prefix fields.
std::string TextTermKeyPrefix(const IndexSpec& spec,
                              const std::vector<const bson_value_t*>& prefix_values,
                              const std::string& term);

// The number of key fields before the text fields (_fts).
size_t TextPrefixFieldCount(const IndexSpec& spec);

}  // namespace tigerdoc::index
