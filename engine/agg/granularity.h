#pragma once
// $bucketAuto's `granularity`: rounding bucket boundaries to preferred
// number series, as MongoDB's GranularityRounder does.
//
//   R5 R10 R20 R40 R80   Renard series       1-2-5   the 1-2-5 series
//   E6 E12 E24 E48 E96 E192   E series       POWERSOF2 powers of two
//
// RoundUp gives the smallest series number strictly greater than the value,
// RoundDown the largest strictly smaller (0 stays 0). Preferred-number
// results are doubles (decimals for a decimal input); POWERSOF2 results are
// 2 to an integer power (an int when it is one). Values must be
// non-negative numbers: 40262 not a number, 40263 NaN, 40268 negative.
//
// Thread-safety: immutable after Make.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/agg/value.h"
#include "engine/base/status.h"

namespace tigerdoc::agg {

class GranularityRounder {
 public:
  // 40257 "Unknown rounding granularity '<name>'".
  static StatusWith<std::shared_ptr<const GranularityRounder>> Make(std::string_view name);

  StatusWith<Value> RoundUp(const Value& v) const;
  StatusWith<Value> RoundDown(const Value& v) const;
  const std::string& name() const { return name_; }

 private:
  GranularityRounder(std::string name, std::vector<double> series)
      : name_(std::move(name)), series_(std::move(series)) {}

  std::string name_;
  std::vector<double> series_;  // empty for POWERSOF2
};

}  // namespace tigerdoc::agg
