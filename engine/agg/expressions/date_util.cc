#include "engine/agg/expressions/date_util.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>

#include "engine/agg/expression_context.h"

namespace tigerdoc::agg {

// Howard Hinnant's days_from_civil / civil_from_days.
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  // Carry months into years first so any month value works.
  y += FloorDiv(m - 1, 12);
  m = FloorMod(m - 1, 12) + 1;
  y -= m <= 2;
  const int64_t era = FloorDiv(y, 400);
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468 + (d - 1);
}

void CivilFromDays(int64_t z, int64_t* y, int* m, int* d) {
  z += 719468;
  const int64_t era = FloorDiv(z, 146097);
  const int64_t doe = z - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  *d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  *m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

namespace {

CivilTime CivilFromMillis(int64_t millis) {
  CivilTime t;
  int64_t days = FloorDiv(millis, 86400000);
  int64_t rem = millis - days * 86400000;
  CivilFromDays(days, &t.year, &t.month, &t.day);
  t.hour = static_cast<int>(rem / 3600000);
  t.minute = static_cast<int>(rem / 60000 % 60);
  t.second = static_cast<int>(rem / 1000 % 60);
  t.millisecond = static_cast<int>(rem % 1000);
  // 1970-01-01 was a Thursday (5 in 1 = Sunday numbering).
  t.day_of_week = static_cast<int>(FloorMod(days + 4, 7)) + 1;
  t.day_of_year = static_cast<int>(days - DaysFromCivil(t.year, 1, 1)) + 1;
  return t;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

int32_t ReadBE32(const unsigned char* p) {
  return static_cast<int32_t>((uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) |
                              (uint32_t(p[2]) << 8) | uint32_t(p[3]));
}
int64_t ReadBE64(const unsigned char* p) {
  return static_cast<int64_t>((uint64_t(uint32_t(ReadBE32(p))) << 32) |
                              uint64_t(uint32_t(ReadBE32(p + 4))));
}

}  // namespace

int64_t TimeZone::OffsetAt(int64_t utc_millis) const {
  if (!transitions_) return fixed_offset_seconds_;
  const Transitions& t = *transitions_;
  int64_t secs = FloorDiv(utc_millis, 1000);
  auto it = std::upper_bound(t.at.begin(), t.at.end(), secs);
  if (it == t.at.begin()) return t.initial_offset;
  return t.offset[static_cast<size_t>(it - t.at.begin()) - 1];
}

CivilTime TimeZone::ToLocal(int64_t utc_millis) const {
  return CivilFromMillis(utc_millis + OffsetAt(utc_millis) * 1000);
}

int64_t TimeZone::FromLocal(int64_t year, int64_t month, int64_t day, int64_t hour,
                            int64_t minute, int64_t second, int64_t millis) const {
  int64_t local = DaysFromCivil(year, month, 1) * 86400000 + (day - 1) * 86400000 +
                  hour * 3600000 + minute * 60000 + second * 1000 + millis;
  // Two passes settle on the offset in force at the resulting instant.
  int64_t guess = local - OffsetAt(local) * 1000;
  return local - OffsetAt(guess) * 1000;
}

StatusWith<TimeZone> TimeZone::Parse(std::string_view id) {
  TimeZone tz;
  if (id == "UTC" || id == "GMT" || id == "Z" || id == "Etc/UTC" || id == "Etc/GMT") return tz;
  auto bad = [&] {
    return Error(40485, "unrecognized time zone identifier: \"" + std::string(id) + "\"");
  };
  if (!id.empty() && (id[0] == '+' || id[0] == '-')) {
    // +hh, +hhmm, +hh:mm
    std::string_view rest = id.substr(1);
    std::string_view hh, mm = "00";
    if (rest.size() == 2) {
      hh = rest;
    } else if (rest.size() == 4) {
      hh = rest.substr(0, 2);
      mm = rest.substr(2);
    } else if (rest.size() == 5 && rest[2] == ':') {
      hh = rest.substr(0, 2);
      mm = rest.substr(3);
    } else {
      return bad();
    }
    if (!AllDigits(hh) || !AllDigits(mm)) return bad();
    int64_t secs = std::stoi(std::string(hh)) * 3600 + std::stoi(std::string(mm)) * 60;
    tz.fixed_offset_seconds_ = id[0] == '-' ? -secs : secs;
    return tz;
  }
  // Olson name: reject anything that could escape the zoneinfo directory.
  if (id.empty() || id[0] == '/' || id.find("..") != std::string_view::npos) return bad();
  for (char c : id) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' ||
          c == '+')) {
      return bad();
    }
  }
  static std::mutex mu;
  static std::map<std::string, std::shared_ptr<const Transitions>, std::less<>> cache;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(id);
    if (it != cache.end()) {
      if (!it->second) return bad();
      tz.transitions_ = it->second;
      return tz;
    }
  }
  const char* dir = std::getenv("TZDIR");
  std::string path = std::string(dir ? dir : "/usr/share/zoneinfo") + "/" + std::string(id);
  std::ifstream in(path, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::shared_ptr<Transitions> parsed;
  // TZif: 44-byte header ("TZif", version, 15 reserved, six counts), the
  // version-1 body with 32-bit times, then (version >= 2) a second header
  // and body with 64-bit times, which is the one read here.
  auto parse_body = [&](size_t pos, int time_size, size_t* end) -> std::shared_ptr<Transitions> {
    if (data.size() < pos + 44 || data.compare(pos, 4, "TZif") != 0) return nullptr;
    const auto* h = reinterpret_cast<const unsigned char*>(data.data() + pos);
    uint32_t isutcnt = ReadBE32(h + 20), isstdcnt = ReadBE32(h + 24), leapcnt = ReadBE32(h + 28),
             timecnt = ReadBE32(h + 32), typecnt = ReadBE32(h + 36), charcnt = ReadBE32(h + 40);
    size_t p = pos + 44;
    size_t need = timecnt * time_size + timecnt + typecnt * 6 + charcnt +
                  leapcnt * (time_size + 4) + isstdcnt + isutcnt;
    if (data.size() < p + need || typecnt == 0) return nullptr;
    const auto* b = reinterpret_cast<const unsigned char*>(data.data() + p);
    auto out = std::make_shared<Transitions>();
    const unsigned char* idx = b + timecnt * time_size;
    const unsigned char* types = idx + timecnt;
    for (uint32_t i = 0; i < timecnt; ++i) {
      int64_t at = time_size == 8 ? ReadBE64(b + i * 8) : ReadBE32(b + i * 4);
      uint8_t ti = idx[i];
      if (ti >= typecnt) return nullptr;
      out->at.push_back(at);
      out->offset.push_back(ReadBE32(types + ti * 6));
    }
    // The first non-DST type is in force before the first transition.
    out->initial_offset = ReadBE32(types);
    for (uint32_t i = 0; i < typecnt; ++i) {
      if (types[i * 6 + 4] == 0) {
        out->initial_offset = ReadBE32(types + i * 6);
        break;
      }
    }
    *end = p + need;
    return out;
  };
  size_t end = 0;
  parsed = parse_body(0, 4, &end);
  if (parsed && data.size() > 4 && data[4] >= '2') {
    size_t end2 = 0;
    auto v2 = parse_body(end, 8, &end2);
    if (v2) parsed = v2;
  }
  // Instants after the last transition keep the last offset. The TZif
  // footer's POSIX rule for future DST changes is not interpreted; the
  // system tzdata lists transitions until 2037, which covers practical use.
  std::lock_guard<std::mutex> lock(mu);
  cache[std::string(id)] = parsed;
  if (!parsed) return bad();
  tz.transitions_ = parsed;
  return tz;
}

void IsoWeek(const CivilTime& t, int64_t* iso_year, int* iso_week) {
  int64_t days = DaysFromCivil(t.year, t.month, t.day);
  int iso_dow = static_cast<int>(FloorMod(days + 3, 7)) + 1;  // Monday = 1
  // The Thursday of this week decides the ISO year.
  int64_t thursday = days - iso_dow + 4;
  int64_t y;
  int m, d;
  CivilFromDays(thursday, &y, &m, &d);
  *iso_year = y;
  *iso_week = static_cast<int>((thursday - DaysFromCivil(y, 1, 1)) / 7) + 1;
}

int WeekOfYear(const CivilTime& t) {
  // Days before the first Sunday are week 0.
  int jan1_dow = static_cast<int>(FloorMod(DaysFromCivil(t.year, 1, 1) + 4, 7));  // 0 = Sunday
  int first_sunday_doy = ((7 - jan1_dow) % 7) + 1;
  if (t.day_of_year < first_sunday_doy) return 0;
  return (t.day_of_year - first_sunday_doy) / 7 + 1;
}

std::string FormatIsoUtc(int64_t millis) {
  CivilTime t = CivilFromMillis(millis);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04lld-%02d-%02dT%02d:%02d:%02d.%03dZ",
                static_cast<long long>(t.year), t.month, t.day, t.hour, t.minute, t.second,
                t.millisecond);
  return buf;
}

}  // namespace tigerdoc::agg
