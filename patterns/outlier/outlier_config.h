#pragma once
// OutlierConfig: the parsed `outlier` option of a parent collection
// (patterns/README.md):
//   { path: "customers", threshold: 1000, overflow: "books_overflow",
//     chunk: 1000, flag: "isOutlier", countField: "customersCount",
//     view: "books_full" }
// `path`, `flag` and `countField` are top-level field names (no dots, no
// '$', not _id, all different); `overflow` and `view` are collection names
// of the same database.
//
// Thread-safety: immutable after Parse.

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::patterns::outlier {

inline constexpr char kPatternName[] = "outlier";
inline constexpr char kOption[] = "outlier";

struct OutlierConfig {
  std::string path;
  int64_t threshold = 0;
  std::string overflow;
  int64_t chunk = 1000;
  std::string flag = "isOutlier";
  std::string count_field;  // empty: none
  std::string view;         // empty: none

  // Parses the option value `option` of `command` (errors name
  // "BSON field '<command>.outlier.<field>'"): 14 TypeMismatch, 9
  // FailedToParse (fractional or NaN numbers), 2 BadValue (out of range,
  // bad names, clashes), 40414 missing required field, 40415 unknown field.
  static StatusWith<OutlierConfig> Parse(std::string_view command, const bson_iter_t* option);
  // From the canonical config stored in the catalog.
  static StatusWith<OutlierConfig> FromCanonical(const bson_t* config);
  bson::BsonDoc ToCanonical() const;

  // 2 BadValue when the config cannot apply to collection `coll` (the
  // overflow or view would be the collection itself).
  Status CheckAgainst(std::string_view command, std::string_view coll) const;
  // 2 BadValue when a collMod from `previous` changes what existing data
  // depends on (path, overflow, flag, countField, chunk).
  Status CheckChange(std::string_view command, const OutlierConfig& previous) const;
};

}  // namespace tigerdoc::patterns::outlier
