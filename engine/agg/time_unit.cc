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

int64_t AddTimeUnits(int64_t millis, TimeUnit unit, int64_t amount) {
  int64_t fixed = FixedUnitMillis(unit);
  if (fixed != 0) return millis + amount * fixed;
  int64_t months = amount * (unit == TimeUnit::kYear ? 12 : unit == TimeUnit::kQuarter ? 3 : 1);
  int64_t days = FloorDiv(millis, 86400000LL);
  int64_t time_of_day = millis - days * 86400000LL;
  int64_t y;
  int m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t total = y * 12 + (m - 1) + months;
  int64_t ny = FloorDiv(total, 12);
  int nm = static_cast<int>(FloorMod(total, 12)) + 1;
  int64_t days_in_month = DaysFromCivil(ny, nm + 1, 1) - DaysFromCivil(ny, nm, 1);
  int64_t nd = std::min<int64_t>(d, days_in_month);
  return DaysFromCivil(ny, nm, nd) * 86400000LL + time_of_day;
}

}  // namespace tigerdoc::agg
