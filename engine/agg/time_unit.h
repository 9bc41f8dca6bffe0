#pragma once
// Time units ("year" .. "millisecond") of $dateAdd/$dateSubtract/$dateDiff/
// $dateTrunc, $setWindowFields range windows ({range, unit}) and $densify
// ({step, unit}), and date arithmetic in a time zone (months and years
// carry and clamp the day as $dateAdd does; days and weeks keep the local
// wall time).
//
// Thread-safety: pure functions.

#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/agg/expressions/date_util.h"

namespace tigerdoc::agg {

enum class TimeUnit { kYear, kQuarter, kMonth, kWeek, kDay, kHour, kMinute, kSecond, kMillisecond };

// nullopt for an unknown name.
std::optional<TimeUnit> ParseTimeUnit(std::string_view name);
// Milliseconds of a fixed-length unit (week and shorter); 0 for month,
// quarter and year, whose length varies.
int64_t FixedUnitMillis(TimeUnit unit);
// `millis` plus `amount` units, in `tz` (UTC by default).
int64_t AddTimeUnits(int64_t millis, TimeUnit unit, int64_t amount, const TimeZone& tz = TimeZone());

}  // namespace tigerdoc::agg
