#pragma once
// Accumulators: the running state of one $group output field (and, later,
// of $bucket and $setWindowFields), and their table.
//
//   {$group: {_id: "$k", total: {$sum: "$x"}}}
//                        └────── AccumulationStatement {field "total",
//                                 op "$sum", argument "$x", factory}
//
// Per group the stage makes one Accumulator with the statement's factory,
// feeds it the statement's argument evaluated on each document of the group
// (Process), then asks for the result (Finalize). Inputs that are missing
// are passed as missing: each accumulator decides (MongoDB's rules: $sum,
// $avg, $stdDev* ignore non-numbers; $min/$max ignore null and missing;
// $push/$addToSet skip missing; $first/$last keep them, as null).
//
// Table (accumulator_table.cc, alphabetical): $addToSet $avg $bottom
// $bottomN $count $first $firstN $last $lastN $max $maxN $mergeObjects $min
// $minN $push $stdDevPop $stdDevSamp $sum $top $topN.
//
// Thread-safety: an Accumulator is used by one thread; statements are
// immutable after parsing.

#include <bson/bson.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "engine/agg/expressions/expression.h"

namespace tigerdoc::agg {

class Accumulator {
 public:
  virtual ~Accumulator() = default;
  virtual Status Process(const Value& input) = 0;
  virtual StatusWith<Value> Finalize() = 0;
  // Approximate bytes held, for the blocking stages' memory limit.
  virtual size_t MemoryUsage() const = 0;
};
using AccumulatorFactory = std::function<std::unique_ptr<Accumulator>()>;

struct AccumulationStatement {
  std::string field;
  std::string op;
  ExpressionPtr argument;
  AccumulatorFactory factory;
};

// Parses one `field: {$op: argument}` of a $group specification. Errors as
// MongoDB: 40234 not an object, 40238 not exactly one field, 15952 unknown
// operator "unknown group operator '$foo'", 40235 a '.' in the field name.
StatusWith<AccumulationStatement> ParseAccumulationStatement(const bson_iter_t* field,
                                                             ParseContext* ctx);

// The accumulator named `op` for plain (non-N) use: nullptr if unknown.
// Used by the expression forms ($sum: [...] in $project). `collator`: the
// operation's collation, which $min/$max and $addToSet compare strings with.
AccumulatorFactory SimpleAccumulatorFactory(std::string_view op,
                                            const bson::Collator* collator = nullptr);

// `field: {$sum: 1}`: the count a stage adds by itself ($sortByCount, and
// $bucket / $bucketAuto without an `output`).
AccumulationStatement CountStatement(std::string field);

}  // namespace tigerdoc::agg
