#pragma once
// Time units of $setWindowFields range windows ({range, unit}) and $densify
// ({step, unit}): "year" .. "millisecond", and date arithmetic in UTC
// (months and years carry and clamp the day as $dateAdd does).
//
// Thread-safety: pure functions.

#include <cstdint>
#include <optional>
#include <string_view>

namespace tigerdoc::agg {

enum class TimeUnit { kYear, kQuarter, kMonth, kWeek, kDay, kHour, kMinute, kSecond, kMillisecond };

// nullopt for an unknown name.
std::optional<TimeUnit> ParseTimeUnit(std::string_view name);
// Milliseconds of a fixed-length unit (week and shorter); 0 for month,
// quarter and year, whose length varies.
int64_t FixedUnitMillis(TimeUnit unit);
// `millis` plus `amount` units, in UTC.
int64_t AddTimeUnits(int64_t millis, TimeUnit unit, int64_t amount);

}  // namespace tigerdoc::agg
