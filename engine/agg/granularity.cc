#include "engine/agg/granularity.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "engine/agg/expression_context.h"

namespace tigerdoc::agg {
namespace {

// The series of MongoDB's granularity_rounder_preferred_numbers.cpp (the
// "least rounded" Renard numbers, 1-2-5 and the E series), each spanning one
// decade.

const std::vector<std::pair<std::string_view, std::vector<double>>>& AllSeries() {
  static const std::vector<std::pair<std::string_view, std::vector<double>>> kSeries = {
      {"R5", {10, 16, 25, 40, 63}},
      {"R10", {100, 125, 160, 200, 250, 315, 400, 500, 630, 800}},
      {"R20", {100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630, 710, 800, 900}},
      {"R40", {100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200, 212, 224, 236, 250, 265, 280, 300,
               315, 355, 375, 400, 425, 450, 475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900, 950}},
      {"R80", {103, 109, 115, 122, 128, 136, 145, 155, 165, 175, 185, 195, 206, 218, 230, 243, 258, 272, 290, 307,
               325, 345, 365, 387, 412, 437, 462, 487, 515, 545, 575, 615, 650, 690, 730, 775, 825, 875, 925, 975}},
      {"1-2-5", {10, 20, 50}},
      {"E6", {10, 15, 22, 33, 47, 68}},
      {"E12", {10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82}},
      {"E24", {10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91}},
      {"E48", {100, 105, 110, 115, 121, 127, 133, 140, 147, 154, 162, 169, 178, 187, 196, 205, 215, 226, 237, 249,
               261, 274, 287, 301, 316, 332, 348, 365, 383, 402, 422, 442, 464, 487, 511, 536, 562, 590, 619, 649,
               681, 715, 750, 787, 825, 866, 909, 953}},
      {"E96", {100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133, 137, 140, 143, 147, 150, 154, 158,
               162, 165, 169, 174, 178, 182, 187, 191, 196, 200, 205, 210, 215, 221, 226, 232, 237, 243, 249, 255,
               261, 267, 274, 280, 287, 294, 301, 309, 316, 324, 332, 340, 348, 357, 365, 374, 383, 392, 402, 412,
               422, 432, 442, 453, 464, 475, 487, 499, 511, 523, 536, 549, 562, 576, 590, 604, 619, 634, 649, 665,
               681, 698, 715, 732, 750, 768, 787, 806, 825, 845, 866, 887, 909, 931, 953, 976}},
      {"E192", {100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115, 117, 118, 120, 121, 123, 124, 126,
                127, 129, 130, 132, 133, 135, 137, 138, 140, 142, 143, 145, 147, 149, 150, 152, 154, 156, 158, 160,
                162, 164, 165, 167, 169, 172, 174, 176, 178, 180, 182, 184, 187, 189, 191, 193, 196, 198, 200, 203,
                205, 208, 210, 213, 215, 218, 221, 223, 226, 229, 232, 234, 237, 240, 243, 246, 249, 252, 255, 258,
                261, 264, 267, 271, 274, 277, 280, 284, 287, 291, 294, 298, 301, 305, 309, 312, 316, 320, 324, 328,
                332, 336, 340, 344, 348, 352, 357, 361, 365, 370, 374, 379, 383, 388, 392, 397, 402, 407, 412, 417,
                422, 427, 432, 437, 442, 448, 453, 459, 464, 470, 475, 481, 487, 493, 499, 505, 511, 517, 523, 530,
                536, 542, 549, 556, 562, 569, 576, 583, 590, 597, 604, 612, 619, 626, 634, 642, 649, 657, 665, 673,
                681, 690, 698, 706, 715, 723, 732, 741, 750, 759, 768, 777, 787, 796, 806, 816, 825, 835, 845, 856,
                866, 876, 887, 898, 909, 920, 931, 942, 953, 965, 976, 988}},
  };
  return kSeries;
}

Status CheckRoundable(const Value& v) {
  if (!v.numeric()) {
    return Error(40262, "A granularity rounder can only round numeric values, but found type: " + v.TypeName());
  }
  double d = v.AsDouble();
  if (std::isnan(d)) return Error(40263, "A granularity rounder cannot round NaN");
  if (d < 0) return Error(40268, "A granularity rounder can only round non-negative numbers");
  return Status::OK();
}

// 2^exp as MongoDB's {$pow: [2, exp]} computes it: an int or long when
// exp >= 0, a double otherwise.
Value PowerOfTwo(int exp) {
  if (exp >= 0 && exp < 63) return Value::IntegralLong(int64_t{1} << exp);
  return Value::Double(std::ldexp(1.0, exp));
}

}  // namespace

StatusWith<std::shared_ptr<const GranularityRounder>> GranularityRounder::Make(std::string_view name) {
  if (name == "POWERSOF2") {
    return std::shared_ptr<const GranularityRounder>(new GranularityRounder(std::string(name), {}));
  }
  for (const auto& [n, series] : AllSeries()) {
    if (n == name) return std::shared_ptr<const GranularityRounder>(new GranularityRounder(std::string(name), series));
  }
  return Error(40257, "Unknown rounding granularity '" + std::string(name) + "'");
}

StatusWith<Value> GranularityRounder::RoundUp(const Value& v) const {
  RETURN_IF_ERROR(CheckRoundable(v));
  double x = v.AsDouble();
  if (x == 0.0) return v;
  if (series_.empty()) {
    int64_t n;
    if (v.type() != BSON_TYPE_DOUBLE && v.type() != BSON_TYPE_DECIMAL128 && v.AsInt64Exact(&n)) {
      // Integers: the next power of two strictly above.
      int bits = 64 - __builtin_clzll(static_cast<uint64_t>(n));
      return PowerOfTwo(bits);
    }
    return PowerOfTwo(static_cast<int>(std::floor(std::log2(x))) + 1);
  }
  double multiplier = 1.0;
  while (x >= series_.back() * multiplier) multiplier *= 10.0;
  while (x < series_.front() * multiplier) {
    double previous_min = series_.front() * multiplier;
    multiplier /= 10.0;
    // Between the previous decade's max and this one's min: round up to the min.
    if (x >= series_.back() * multiplier) return Value::Double(previous_min);
  }
  auto it = std::upper_bound(series_.begin(), series_.end(), x,
                             [multiplier](double n, double s) { return n < s * multiplier; });
  Value out = Value::Double(*it * multiplier);
  return v.type() == BSON_TYPE_DECIMAL128 ? Value::Decimal(out.AsDecimal()) : out;
}

StatusWith<Value> GranularityRounder::RoundDown(const Value& v) const {
  RETURN_IF_ERROR(CheckRoundable(v));
  double x = v.AsDouble();
  if (x == 0.0) return v;
  if (series_.empty()) {
    int64_t n;
    if (v.type() != BSON_TYPE_DOUBLE && v.type() != BSON_TYPE_DECIMAL128 && v.AsInt64Exact(&n)) {
      int log = 63 - __builtin_clzll(static_cast<uint64_t>(n));
      bool power = (n & (n - 1)) == 0;
      return PowerOfTwo(power ? log - 1 : log);
    }
    return PowerOfTwo(static_cast<int>(std::ceil(std::log2(x))) - 1);
  }
  double multiplier = 1.0;
  while (x <= series_.front() * multiplier) multiplier /= 10.0;
  while (x > series_.back() * multiplier) {
    double previous_max = series_.back() * multiplier;
    multiplier *= 10.0;
    if (x <= series_.front() * multiplier) return Value::Double(previous_max);
  }
  auto it = std::lower_bound(series_.begin(), series_.end(), x,
                             [multiplier](double s, double n) { return s * multiplier < n; });
  Value out = Value::Double(*(it - 1) * multiplier);
  return v.type() == BSON_TYPE_DECIMAL128 ? Value::Decimal(out.AsDecimal()) : out;
}

}  // namespace tigerdoc::agg
