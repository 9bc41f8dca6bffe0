#include "engine/agg/time_unit.h"

#include <algorithm>

#include "engine/agg/expressions/date_util.h"

namespace tigerdoc::agg {

std::optional<TimeUnit> ParseTimeUnit(std::string_view name) {
  static constexpr std::pair<std::string_view, TimeUnit> kUnits[] = {
      {"year", TimeUnit::kYear},     {"quarter", TimeUnit::kQuarter}, {"month", TimeUnit::kMonth},
      {"week", TimeUnit::kWeek},     {"day", TimeUnit::kDay},         {"hour", TimeUnit::kHour},
      {"minute", TimeUnit::kMinute}, {"second", TimeUnit::kSecond},   {"millisecond", TimeUnit::kMillisecond}};
  for (const auto& [n, u] : kUnits) {
    if (n == name) return u;
  }
  return std::nullopt;
}

int64_t FixedUnitMillis(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kWeek: return 7 * 86400000LL;
    case TimeUnit::kDay: return 86400000LL;
    case TimeUnit::kHour: return 3600000LL;
    case TimeUnit::kMinute: return 60000LL;
    case TimeUnit::kSecond: return 1000LL;
    case TimeUnit::kMillisecond: return 1;
    default: return 0;
  }
}

int64_t AddTimeUnits(int64_t millis, TimeUnit unit, int64_t amount, const TimeZone& tz) {
  if (unit == TimeUnit::kYear || unit == TimeUnit::kQuarter || unit == TimeUnit::kMonth) {
    int64_t months = amount * (unit == TimeUnit::kYear ? 12 : unit == TimeUnit::kQuarter ? 3 : 1);
    CivilTime t = tz.ToLocal(millis);
    int64_t total = t.year * 12 + (t.month - 1) + months;
    int64_t y = FloorDiv(total, 12);
    int m = static_cast<int>(FloorMod(total, 12)) + 1;
    // Clamp the day to the last day of the target month.
    int64_t days_in_month = DaysFromCivil(y, m + 1, 1) - DaysFromCivil(y, m, 1);
    int64_t d = std::min<int64_t>(t.day, days_in_month);
    return tz.FromLocal(y, m, d, t.hour, t.minute, t.second, t.millisecond);
  }
  if (unit == TimeUnit::kDay || unit == TimeUnit::kWeek) {
    CivilTime t = tz.ToLocal(millis);
    int64_t days = amount * (unit == TimeUnit::kWeek ? 7 : 1);
    return tz.FromLocal(t.year, t.month, t.day + days, t.hour, t.minute, t.second, t.millisecond);
  }
  return millis + amount * FixedUnitMillis(unit);
}

}  // namespace tigerdoc::agg
