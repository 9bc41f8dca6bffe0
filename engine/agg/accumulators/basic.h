#pragma once
// Internal to accumulators/: shared helpers of the accumulator files.

#include "engine/agg/accumulators/accumulator.h"

namespace tigerdoc::agg {

// The N-accumulators and $top/$bottom: parse `{$op: {...}}` into a
// statement (argument and factory). Defined in n_accumulators.cc.
StatusWith<AccumulationStatement> ParseNAccumulator(std::string_view op, const bson_iter_t* spec,
                                                    ParseContext* ctx);
bool IsNAccumulator(std::string_view op);

}  // namespace tigerdoc::agg
