#pragma once
// Calendar arithmetic and time zones for the date operators.
//
// A TimeZone is UTC, a fixed offset ("+05:30", "-0800", "+03"), or an Olson
// name ("America/New_York") read from the system tzdata (TZif files under
// /usr/share/zoneinfo, or $TZDIR): GCC 12's libstdc++ has no
// std::chrono::locate_zone, and localtime_r with TZ is not thread-safe.
//
// Thread-safety: pure functions; loaded zones are cached behind a mutex.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace tigerdoc::agg {

struct CivilTime {
  int64_t year = 1970;
  int month = 1;   // 1..12
  int day = 1;     // 1..31
  int hour = 0, minute = 0, second = 0, millisecond = 0;
  int day_of_week = 5;  // 1 = Sunday .. 7 = Saturday (MongoDB's $dayOfWeek)
  int day_of_year = 1;  // 1..366
};

class TimeZone {
 public:
  // UTC.
  TimeZone() = default;
  // 40485 "unrecognized time zone identifier: \"x\"" when unknown.
  static StatusWith<TimeZone> Parse(std::string_view id);

  // Offset from UTC in seconds at the UTC instant `utc_millis`.
  int64_t OffsetAt(int64_t utc_millis) const;
  // The local wall time at `utc_millis`.
  CivilTime ToLocal(int64_t utc_millis) const;
  // The UTC instant of local wall time (fields may be out of range: they
  // carry, as $dateFromParts does).
  int64_t FromLocal(int64_t year, int64_t month, int64_t day, int64_t hour, int64_t minute,
                    int64_t second, int64_t millis) const;

 private:
  struct Transitions {
    std::vector<int64_t> at;       // UTC seconds of each transition, ascending
    std::vector<int32_t> offset;   // offset in force from at[i]
    int32_t initial_offset = 0;    // before the first transition
  };
  int64_t fixed_offset_seconds_ = 0;
  std::shared_ptr<const Transitions> transitions_;
};

// Days since 1970-01-01 of a proleptic Gregorian date (month/day may carry).
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d);
// Inverse of DaysFromCivil.
void CivilFromDays(int64_t days, int64_t* y, int* m, int* d);
// Floor division helpers.
inline int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
inline int64_t FloorMod(int64_t a, int64_t b) { return a - FloorDiv(a, b) * b; }

// ISO 8601 week-numbering: week 1..53 and its year; ISO day 1 = Monday.
void IsoWeek(const CivilTime& t, int64_t* iso_year, int* iso_week);
// MongoDB's $week: weeks start Sunday, week 0 before the first Sunday.
int WeekOfYear(const CivilTime& t);

// "2018-03-27T16:58:51.538Z" in UTC (MongoDB's default date rendering).
std::string FormatIsoUtc(int64_t millis);

}  // namespace tigerdoc::agg

namespace tigerdoc::agg {
// Parses a date string as MongoDB's formatless $dateFromString does (the
// grammar is in date_string_parser.cc): ISO 8601 ("2018-03-03T12:00:00.123Z",
// "2018-03-03 12:00:00 +0100"), month names ("July 4th, 2017 11am"),
// American dates ("7/4/17"), zone abbreviations ("12:39:30 BST"). A string
// without its own offset is read in `tz`; one with an offset fails when
// `timezone_given` (the caller passed a timezone argument). Failures are
// ConversionFailure (241) naming the string.
StatusWith<int64_t> ParseDateString(std::string_view s, const TimeZone& tz,
                                    bool timezone_given = false);
}  // namespace tigerdoc::agg
