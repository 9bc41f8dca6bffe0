#pragma once
// Internal to window/: the functions that are not accumulators ($rank,
// $shift, $derivative, ...), parsed in sequence_functions.cc.

#include <optional>
#include <string>

#include "engine/agg/window/window_function.h"

namespace tigerdoc::agg {

Status WindowParseError(const std::string& message);
bool IsWindowFunctionName(std::string_view name);

// `op` is a known non-accumulator window function; `arg` is on its argument;
// `bounds` is the output field's window, when given.
StatusWith<std::unique_ptr<WindowFunction>> ParseSequenceFunction(
    const std::string& op, const bson_iter_t* arg, const std::optional<WindowBounds>& bounds,
    const SortByShape& sort_by, ParseContext* ctx);

}  // namespace tigerdoc::agg
