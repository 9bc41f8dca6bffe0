#include "engine/agg/expressions/operator_table.h"

#include <algorithm>
#include <iterator>

namespace tigerdoc::agg {
namespace {

struct Entry {
  std::string_view name;
  OperatorParseFn parse;
};

// THE operator table. Alphabetical (checked by a test through FindOperator
// of every name; lookup is a binary search).
constexpr Entry kOperators[] = {
    {"$abs", ParseArithmetic},
    {"$add", ParseArithmetic},
    {"$allElementsTrue", ParseSetOp},
    {"$and", ParseBoolean},
    {"$anyElementTrue", ParseSetOp},
    {"$arrayElemAt", ParseArrayOp},
    {"$arrayToObject", ParseArrayOp},
    {"$avg", ParseAccumulatorOp},
    {"$ceil", ParseArithmetic},
    {"$cmp", ParseComparison},
    {"$concat", ParseStringOp},
    {"$concatArrays", ParseArrayOp},
    {"$cond", ParseConditional},
    {"$convert", ParseTypeOp},
    {"$dateAdd", ParseDateOp},
    {"$dateDiff", ParseDateOp},
    {"$dateFromParts", ParseDateOp},
    {"$dateFromString", ParseDateOp},
    {"$dateSubtract", ParseDateOp},
    {"$dateToParts", ParseDateOp},
    {"$dateToString", ParseDateOp},
    {"$dateTrunc", ParseDateOp},
    {"$dayOfMonth", ParseDateOp},
    {"$dayOfWeek", ParseDateOp},
    {"$dayOfYear", ParseDateOp},
    {"$divide", ParseArithmetic},
    {"$eq", ParseComparison},
    {"$exp", ParseArithmetic},
    {"$filter", ParseHigherOrder},
    {"$first", ParseArrayOp},
    {"$firstN", ParseAccumulatorOp},
    {"$floor", ParseArithmetic},
    {"$getField", ParseObjectOp},
    {"$gt", ParseComparison},
    {"$gte", ParseComparison},
    {"$hour", ParseDateOp},
    {"$ifNull", ParseConditional},
    {"$in", ParseArrayOp},
    {"$indexOfArray", ParseArrayOp},
    {"$indexOfBytes", ParseStringOp},
    {"$indexOfCP", ParseStringOp},
    {"$isArray", ParseArrayOp},
    {"$isNumber", ParseTypeOp},
    {"$isoDayOfWeek", ParseDateOp},
    {"$isoWeek", ParseDateOp},
    {"$isoWeekYear", ParseDateOp},
    {"$last", ParseArrayOp},
    {"$lastN", ParseAccumulatorOp},
    {"$let", ParseHigherOrder},
    {"$literal", ParseMiscOp},
    {"$ln", ParseArithmetic},
    {"$log", ParseArithmetic},
    {"$log10", ParseArithmetic},
    {"$lt", ParseComparison},
    {"$lte", ParseComparison},
    {"$ltrim", ParseStringOp},
    {"$map", ParseHigherOrder},
    {"$max", ParseAccumulatorOp},
    {"$maxN", ParseAccumulatorOp},
    {"$mergeObjects", ParseObjectOp},
    {"$millisecond", ParseDateOp},
    {"$min", ParseAccumulatorOp},
    {"$minN", ParseAccumulatorOp},
    {"$minute", ParseDateOp},
    {"$mod", ParseArithmetic},
    {"$month", ParseDateOp},
    {"$multiply", ParseArithmetic},
    {"$ne", ParseComparison},
    {"$not", ParseBoolean},
    {"$objectToArray", ParseObjectOp},
    {"$or", ParseBoolean},
    {"$pow", ParseArithmetic},
    {"$rand", ParseMiscOp},
    {"$range", ParseArrayOp},
    {"$reduce", ParseHigherOrder},
    {"$regexFind", ParseRegexOp},
    {"$regexFindAll", ParseRegexOp},
    {"$regexMatch", ParseRegexOp},
    {"$replaceAll", ParseStringOp},
    {"$replaceOne", ParseStringOp},
    {"$reverseArray", ParseArrayOp},
    {"$round", ParseArithmetic},
    {"$rtrim", ParseStringOp},
    {"$second", ParseDateOp},
    {"$setDifference", ParseSetOp},
    {"$setEquals", ParseSetOp},
    {"$setField", ParseObjectOp},
    {"$setIntersection", ParseSetOp},
    {"$setIsSubset", ParseSetOp},
    {"$setUnion", ParseSetOp},
    {"$size", ParseArrayOp},
    {"$slice", ParseArrayOp},
    {"$sortArray", ParseArrayOp},
    {"$split", ParseStringOp},
    {"$sqrt", ParseArithmetic},
    {"$stdDevPop", ParseAccumulatorOp},
    {"$stdDevSamp", ParseAccumulatorOp},
    {"$strLenBytes", ParseStringOp},
    {"$strLenCP", ParseStringOp},
    {"$strcasecmp", ParseStringOp},
    {"$substr", ParseStringOp},
    {"$substrBytes", ParseStringOp},
    {"$substrCP", ParseStringOp},
    {"$subtract", ParseArithmetic},
    {"$sum", ParseAccumulatorOp},
    {"$switch", ParseConditional},
    {"$toBool", ParseTypeOp},
    {"$toDate", ParseTypeOp},
    {"$toDecimal", ParseTypeOp},
    {"$toDouble", ParseTypeOp},
    {"$toInt", ParseTypeOp},
    {"$toLong", ParseTypeOp},
    {"$toLower", ParseStringOp},
    {"$toObjectId", ParseTypeOp},
    {"$toString", ParseTypeOp},
    {"$toUpper", ParseStringOp},
    {"$trim", ParseStringOp},
    {"$trunc", ParseArithmetic},
    {"$type", ParseTypeOp},
    {"$unsetField", ParseObjectOp},
    {"$week", ParseDateOp},
    {"$year", ParseDateOp},
    {"$zip", ParseArrayOp},
};

}  // namespace

OperatorParseFn FindOperator(std::string_view name) {
  auto it = std::lower_bound(std::begin(kOperators), std::end(kOperators), name,
                             [](const Entry& e, std::string_view n) { return e.name < n; });
  if (it == std::end(kOperators) || it->name != name) return nullptr;
  return it->parse;
}

std::vector<std::string_view> OperatorNames() {
  std::vector<std::string_view> names;
  for (const Entry& e : kOperators) names.push_back(e.name);
  return names;
}

}  // namespace tigerdoc::agg
