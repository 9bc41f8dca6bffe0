// Date operators: the part extractors ($year ... $isoWeekYear),
// $dateToString $dateFromString $dateToParts $dateFromParts $dateAdd
// $dateSubtract $dateDiff $dateTrunc. Time zones: see date_util.h.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <string>

#include "engine/agg/expressions/date_util.h"
#include "engine/agg/expressions/operator_table.h"
#include "engine/agg/time_unit.h"
#include "engine/bson/shell_string.h"

namespace tigerdoc::agg {
namespace {

// Value::coerceToDate.
StatusWith<int64_t> CoerceToDate(const Value& v) {
  switch (v.type()) {
    case BSON_TYPE_DATE_TIME: return v.date();
    case BSON_TYPE_TIMESTAMP: return static_cast<int64_t>(v.get()->value.v_timestamp.timestamp) * 1000;
    case BSON_TYPE_OID:
      return static_cast<int64_t>(bson_oid_get_time_t(&v.get()->value.v_oid)) * 1000;
    default: return Error(16006, "can't convert from BSON type " + v.TypeName() + " to Date");
  }
}

StatusWith<TimeZone> ZoneOf(const std::string& op, const Value& tz) {
  if (tz.missing()) return TimeZone();
  if (!tz.is_string()) {
    return Error(40533, op + " requires a string for the timezone argument, but was given a " +
                            tz.TypeName() + " (" + tz.ToString() + ")");
  }
  return TimeZone::Parse(tz.str());
}

// MongoDB's makeTimeZone: an absent `timezone` is UTC; one that evaluates
// to null or missing makes the operator's result null (nullopt here).
StatusWith<std::optional<TimeZone>> OptionalZone(const std::string& op, const NamedValues& a) {
  auto it = a.find("timezone");
  if (it == a.end()) return std::optional<TimeZone>(TimeZone());
  if (it->second.nullish()) return std::optional<TimeZone>();
  ASSIGN_OR_RETURN(TimeZone tz, ZoneOf(op, it->second));
  return std::optional<TimeZone>(std::move(tz));
}

// Named-argument parsing shared by the date operators: every field must be
// in `allowed`.
StatusWith<std::map<std::string, ExpressionPtr>> ParseArgsObject(
    const std::string& op, const bson_iter_t* operand, ParseContext* ctx,
    const std::vector<std::string>& allowed, int not_object_code, int unknown_code) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(not_object_code, op + " only supports an object as its argument");
  }
  bson_t sub = bson::SubDocumentView(operand);
  bson_iter_t it;
  bson_iter_init(&it, &sub);
  std::map<std::string, ExpressionPtr> out;
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == key;
    if (!ok) return Error(unknown_code, "Unrecognized argument to " + op + ": " + key);
    ASSIGN_OR_RETURN(out[key], ParseOperand(&it, ctx));
  }
  return out;
}

// ---- part extractors ----

StatusWith<Value> ExtractPart(std::string_view op, int64_t millis, const TimeZone& tz) {
  CivilTime t = tz.ToLocal(millis);
  if (op == "$year") return Value::Int(static_cast<int32_t>(t.year));
  if (op == "$month") return Value::Int(t.month);
  if (op == "$dayOfMonth") return Value::Int(t.day);
  if (op == "$hour") return Value::Int(t.hour);
  if (op == "$minute") return Value::Int(t.minute);
  if (op == "$second") return Value::Int(t.second);
  if (op == "$millisecond") return Value::Int(t.millisecond);
  if (op == "$dayOfWeek") return Value::Int(t.day_of_week);
  if (op == "$dayOfYear") return Value::Int(t.day_of_year);
  if (op == "$week") return Value::Int(WeekOfYear(t));
  if (op == "$isoDayOfWeek") return Value::Int(t.day_of_week == 1 ? 7 : t.day_of_week - 1);
  int64_t iy;
  int iw;
  IsoWeek(t, &iy, &iw);
  if (op == "$isoWeek") return Value::Int(iw);
  return Value::IntegralLong(iy);  // $isoWeekYear
}

StatusWith<ExpressionPtr> ParsePart(std::string_view name, const bson_iter_t* operand,
                                    ParseContext* ctx) {
  std::string op(name);
  std::map<std::string, ExpressionPtr> args;
  if (BSON_ITER_HOLDS_DOCUMENT(operand)) {
    bson_t sub = bson::SubDocumentView(operand);
    bson_iter_t first;
    bson_iter_init(&first, &sub);
    if (bson_iter_next(&first) && bson_iter_key(&first)[0] != '$') {
      bson_iter_t it;
      bson_iter_init(&it, &sub);
      while (bson_iter_next(&it)) {
        std::string key = bson_iter_key(&it);
        if (key != "date" && key != "timezone") {
          return Error(40535, "unrecognized option to " + op + ": \"" + key + "\"");
        }
        ASSIGN_OR_RETURN(args[key], ParseOperand(&it, ctx));
      }
      if (!args.count("date")) {
        return Error(40539, "missing 'date' argument to " + op + ", provided: " +
                                bson::ToShellString(&sub));
      }
    }
  }
  if (args.empty()) {
    ASSIGN_OR_RETURN(auto list, ParseArgList(operand, ctx));
    RETURN_IF_ERROR(CheckArity(name, list.size(), 1, 1));
    args["date"] = std::move(list[0]);
  }
  return MakeNamed(std::move(args), [op](NamedValues& a) -> StatusWith<Value> {
    const Value& d = a["date"];
    if (d.nullish()) return Value::Null();
    const Value& tzv = a["timezone"];
    if (!tzv.missing() && tzv.nullish()) return Value::Null();
    ASSIGN_OR_RETURN(int64_t millis, CoerceToDate(d));
    ASSIGN_OR_RETURN(TimeZone tz, ZoneOf(op, tzv));
    return ExtractPart(op, millis, tz);
  });
}

// MongoDB's TimeZone::validateFormat, run on a non-null format before the
// date is looked at: a '%' ending the format is 18535, one before a
// character outside `specifiers` 18536.
Status ValidateDateFormat(std::string_view fmt, std::string_view specifiers) {
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') continue;
    if (++i >= fmt.size()) return Error(18535, "Unmatched '%' at end of format string");
    if (specifiers.find(fmt[i]) == std::string_view::npos) {
      return Error(18536, std::string("Invalid format character '%") + fmt[i] + "' in format string");
    }
  }
  return Status::OK();
}
constexpr std::string_view kToStringSpecifiers = "%YmdHMSLjwuUGVbBzZ";
constexpr std::string_view kFromStringSpecifiers = "%YmdHMSLzZ";

// ---- $dateToString ----

const char* const kMonthNames[] = {"January", "February", "March",     "April",   "May",      "June",
                                   "July",    "August",   "September", "October", "November", "December"};

StatusWith<std::string> FormatDate(const std::string& fmt, int64_t millis, const TimeZone& tz) {
  CivilTime t = tz.ToLocal(millis);
  std::string out;
  char buf[32];
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    if (i + 1 >= fmt.size()) {
      return Error(18535, "Unmatched '%' at end of format string");
    }
    char c = fmt[++i];
    int64_t iy;
    int iw;
    switch (c) {
      case '%': out.push_back('%'); continue;
      case 'Y': std::snprintf(buf, sizeof(buf), "%04lld", static_cast<long long>(t.year)); break;
      case 'm': std::snprintf(buf, sizeof(buf), "%02d", t.month); break;
      case 'd': std::snprintf(buf, sizeof(buf), "%02d", t.day); break;
      case 'H': std::snprintf(buf, sizeof(buf), "%02d", t.hour); break;
      case 'M': std::snprintf(buf, sizeof(buf), "%02d", t.minute); break;
      case 'S': std::snprintf(buf, sizeof(buf), "%02d", t.second); break;
      case 'L': std::snprintf(buf, sizeof(buf), "%03d", t.millisecond); break;
      case 'j': std::snprintf(buf, sizeof(buf), "%03d", t.day_of_year); break;
      case 'w': std::snprintf(buf, sizeof(buf), "%d", t.day_of_week); break;
      case 'u': std::snprintf(buf, sizeof(buf), "%d", t.day_of_week == 1 ? 7 : t.day_of_week - 1); break;
      case 'U': std::snprintf(buf, sizeof(buf), "%02d", WeekOfYear(t)); break;
      case 'G': IsoWeek(t, &iy, &iw); std::snprintf(buf, sizeof(buf), "%04lld", static_cast<long long>(iy)); break;
      case 'V': IsoWeek(t, &iy, &iw); std::snprintf(buf, sizeof(buf), "%02d", iw); break;
      case 'b': std::snprintf(buf, sizeof(buf), "%.3s", kMonthNames[t.month - 1]); break;
      case 'B': std::snprintf(buf, sizeof(buf), "%s", kMonthNames[t.month - 1]); break;
      case 'z':
      case 'Z': {
        int64_t off = tz.OffsetAt(millis);
        if (c == 'Z') {
          std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(off / 60));
        } else {
          int64_t a = off < 0 ? -off : off;
          std::snprintf(buf, sizeof(buf), "%c%02lld%02lld", off < 0 ? '-' : '+',
                        static_cast<long long>(a / 3600), static_cast<long long>(a / 60 % 60));
        }
        break;
      }
      default:
        return Error(18536, std::string("Invalid format character '%") + c + "' in format string");
    }
    out += buf;
  }
  return out;
}

StatusWith<ExpressionPtr> ParseDateToString(const bson_iter_t* operand, ParseContext* ctx) {
  const std::string op = "$dateToString";
  ASSIGN_OR_RETURN(auto args, ParseArgsObject(op, operand, ctx, {"date", "format", "timezone", "onNull"},
                                              18629, 18534));
  if (!args.count("date")) return Error(18628, "Missing 'date' parameter to $dateToString");
  // MongoDB's order (ExpressionDateToString::evaluate): a non-null format
  // is checked first, then the timezone (an invalid one fails even for a
  // null date); then a null date gives onNull; then a null timezone or
  // format gives null; only then is the date type-checked.
  return MakeNamed(std::move(args), [op](NamedValues& a) -> StatusWith<Value> {
    auto fmt_it = a.find("format");
    std::string format = "%Y-%m-%dT%H:%M:%S.%LZ";
    if (fmt_it != a.end() && !fmt_it->second.nullish()) {
      const Value& fmt = fmt_it->second;
      if (!fmt.is_string()) {
        return Error(18533, "$dateToString requires that 'format' be a string, found: " +
                                fmt.TypeName() + " with value " + fmt.ToString());
      }
      RETURN_IF_ERROR(ValidateDateFormat(fmt.str(), kToStringSpecifiers));
      format = std::string(fmt.str());
    }
    ASSIGN_OR_RETURN(std::optional<TimeZone> tz, OptionalZone(op, a));
    const Value& d = a["date"];
    if (d.nullish()) {
      auto it = a.find("onNull");
      return it != a.end() ? it->second : Value::Null();
    }
    if (!tz) return Value::Null();
    if (fmt_it != a.end() && fmt_it->second.nullish()) return Value::Null();
    ASSIGN_OR_RETURN(int64_t millis, CoerceToDate(d));
    ASSIGN_OR_RETURN(std::string s, FormatDate(format, millis, *tz));
    return Value::String(s);
  });
}

// ---- $dateFromString ----

StatusWith<int64_t> ParseWithFormat(std::string_view s, const std::string& fmt, const TimeZone& tz) {
  auto fail = [&] {
    return Error(241, "Error parsing date string '" + std::string(s) + "' with format '" + fmt + "'");
  };
  int64_t y = 1970, mo = 1, d = 1, h = 0, mi = 0, sec = 0, ms = 0;
  std::optional<int64_t> offset;
  size_t p = 0;
  auto num = [&](int max_digits, int64_t* out) {
    int64_t v = 0;
    int n = 0;
    while (n < max_digits && p < s.size() && s[p] >= '0' && s[p] <= '9') {
      v = v * 10 + (s[p++] - '0');
      ++n;
    }
    *out = v;
    return n > 0;
  };
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      if (p >= s.size() || s[p] != fmt[i]) return fail();
      ++p;
      continue;
    }
    char c = fmt[++i];
    bool ok = true;
    switch (c) {
      case 'Y': ok = num(4, &y); break;
      case 'm': ok = num(2, &mo); break;
      case 'd': ok = num(2, &d); break;
      case 'H': ok = num(2, &h); break;
      case 'M': ok = num(2, &mi); break;
      case 'S': ok = num(2, &sec); break;
      case 'L': {
        size_t start = p;
        ok = num(3, &ms);
        for (size_t k = p - start; k < 3; ++k) ms *= 10;
        break;
      }
      case '%': ok = p < s.size() && s[p++] == '%'; break;
      case 'z':
      case 'Z': {
        size_t start = p;
        if (p < s.size() && (s[p] == '+' || s[p] == '-')) ++p;
        while (p < s.size() && ((s[p] >= '0' && s[p] <= '9') || s[p] == ':')) ++p;
        if (c == 'Z') {
          int64_t minutes = std::stoll(std::string(s.substr(start, p - start)));
          offset = minutes * 60;
        } else {
          auto z = TimeZone::Parse(s.substr(start, p - start));
          if (!z.ok()) return fail();
          offset = z.value().OffsetAt(0);
        }
        break;
      }
      default: return Error(18536, std::string("Invalid format character '%") + c + "' in format string");
    }
    if (!ok) return fail();
  }
  if (p != s.size()) return fail();
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) return fail();
  if (offset) {
    return TimeZone().FromLocal(y, mo, d, h, mi, sec, ms) - *offset * 1000;
  }
  return tz.FromLocal(y, mo, d, h, mi, sec, ms);
}

StatusWith<ExpressionPtr> ParseDateFromString(const bson_iter_t* operand, ParseContext* ctx) {
  const std::string op = "$dateFromString";
  ASSIGN_OR_RETURN(auto args, ParseArgsObject(op, operand, ctx,
                                              {"dateString", "format", "timezone", "onError", "onNull"},
                                              40540, 40541));
  if (!args.count("dateString")) {
    return Error(40542, "Missing 'dateString' parameter to $dateFromString");
  }
  return MakeNamed(std::move(args), [op](NamedValues& a) -> StatusWith<Value> {
    // MongoDB's order (ExpressionDateFromString::evaluate): a non-null
    // format is checked, then the timezone (an invalid one fails even for a
    // null dateString); a null dateString gives onNull; a dateString that
    // is not a string is a ConversionFailure (241, onError catches it); only
    // then a null timezone or format gives null.
    const Value& s = a["dateString"];
    auto fmt_it = a.find("format");
    const Value fmt = fmt_it != a.end() ? fmt_it->second : Value::Missing();
    if (fmt_it != a.end() && !fmt.nullish() && !fmt.is_string()) {
      return Error(40684, "$dateFromString requires that 'format' be a string, found: " +
                              fmt.TypeName() + " with value " + fmt.ToString());
    }
    if (fmt.is_string()) RETURN_IF_ERROR(ValidateDateFormat(fmt.str(), kFromStringSpecifiers));
    ASSIGN_OR_RETURN(std::optional<TimeZone> zone, OptionalZone(op, a));
    if (s.nullish()) {
      auto it = a.find("onNull");
      return it != a.end() ? it->second : Value::Null();
    }
    auto on_error = a.find("onError");
    if (!s.is_string()) {
      if (on_error != a.end()) return on_error->second;
      return Error(241, "$dateFromString requires that 'dateString' be a string, found: " +
                            s.TypeName() + " with value " + s.ToString());
    }
    if (!zone) return Value::Null();
    if (fmt_it != a.end() && fmt.nullish()) return Value::Null();
    const TimeZone& tz = *zone;
    auto parsed = fmt.is_string() ? ParseWithFormat(s.str(), std::string(fmt.str()), tz)
                                  : ParseDateString(s.str(), tz, a.count("timezone") > 0);
    if (!parsed.ok()) {
      if (on_error != a.end() && parsed.status().code_number() == 241) return on_error->second;
      return parsed.status();
    }
    return Value::Date(parsed.value());
  });
}

// ---- $dateToParts / $dateFromParts ----

StatusWith<ExpressionPtr> ParseDateToParts(const bson_iter_t* operand, ParseContext* ctx) {
  const std::string op = "$dateToParts";
  ASSIGN_OR_RETURN(auto args, ParseArgsObject(op, operand, ctx, {"date", "timezone", "iso8601"},
                                              40524, 40520));
  if (!args.count("date")) return Error(40522, "Missing 'date' parameter to $dateToParts");
  return MakeNamed(std::move(args), [op](NamedValues& a) -> StatusWith<Value> {
    // MongoDB's order (ExpressionDateToParts::evaluate): timezone (null ->
    // null, invalid -> error), then iso8601 (null -> null, not a bool ->
    // 40521), then a null date -> null, and only then the date's type.
    ASSIGN_OR_RETURN(std::optional<TimeZone> tz, OptionalZone(op, a));
    if (!tz) return Value::Null();
    auto iso_it = a.find("iso8601");
    const Value iso = iso_it != a.end() ? iso_it->second : Value::Bool(false);
    if (iso.nullish()) return Value::Null();
    if (iso.type() != BSON_TYPE_BOOL) {
      return Error(40521, "iso8601 must evaluate to a bool, found " + iso.TypeName());
    }
    const Value& d = a["date"];
    if (d.nullish()) return Value::Null();
    ASSIGN_OR_RETURN(int64_t millis, CoerceToDate(d));
    CivilTime t = tz->ToLocal(millis);
    std::vector<std::pair<std::string, Value>> f;
    if (iso.Truthy()) {
      int64_t iy;
      int iw;
      IsoWeek(t, &iy, &iw);
      f = {{"isoWeekYear", Value::IntegralLong(iy)},
           {"isoWeek", Value::Int(iw)},
           {"isoDayOfWeek", Value::Int(t.day_of_week == 1 ? 7 : t.day_of_week - 1)}};
    } else {
      f = {{"year", Value::IntegralLong(t.year)}, {"month", Value::Int(t.month)}, {"day", Value::Int(t.day)}};
    }
    f.emplace_back("hour", Value::Int(t.hour));
    f.emplace_back("minute", Value::Int(t.minute));
    f.emplace_back("second", Value::Int(t.second));
    f.emplace_back("millisecond", Value::Int(t.millisecond));
    return MakeDocument(f);
  });
}

StatusWith<ExpressionPtr> ParseDateFromParts(const bson_iter_t* operand, ParseContext* ctx) {
  const std::string op = "$dateFromParts";
  ASSIGN_OR_RETURN(auto args, ParseArgsObject(op, operand, ctx,
                                              {"year", "month", "day", "hour", "minute", "second",
                                               "millisecond", "isoWeekYear", "isoWeek",
                                               "isoDayOfWeek", "timezone"},
                                              40519, 40518));
  bool iso = args.count("isoWeekYear") > 0;
  if (!iso && !args.count("year")) {
    return Error(40516, "$dateFromParts requires either 'year' or 'isoWeekYear' to be present");
  }
  if (iso && args.count("year")) {
    return Error(40489, "$dateFromParts does not allow mixing natural dates with ISO dates");
  }
  if (iso && (args.count("month") || args.count("day"))) {
    return Error(40525, "$dateFromParts does not allow mixing natural dates with ISO dates");
  }
  if (!iso && (args.count("isoWeek") || args.count("isoDayOfWeek"))) {
    return Error(40525, "$dateFromParts does not allow mixing natural dates with ISO dates");
  }
  return MakeNamed(std::move(args), [op, iso](NamedValues& a) -> StatusWith<Value> {
    auto part = [&](const char* name, int64_t def, int64_t lo, int64_t hi,
                    int64_t* out) -> StatusWith<bool> {
      const Value& v = a[name];
      if (v.missing()) {
        *out = def;
        return true;
      }
      if (v.nullish()) return false;
      if (!v.numeric()) {
        return Error(40515, std::string("'") + name + "' must evaluate to an integer, found " +
                                v.TypeName() + " with value " + v.ToString());
      }
      if (!v.AsInt64Exact(out)) {
        return Error(40515, std::string("'") + name + "' must evaluate to an integer, found " +
                                v.TypeName() + " with value " + v.ToString());
      }
      if (*out < lo || *out > hi) {
        if (lo == 1) {
          return Error(40523, std::string("'") + name + "' must evaluate to an integer in the range " +
                                  std::to_string(lo) + " to " + std::to_string(hi) + ", found " +
                                  std::to_string(*out));
        }
        return Error(31034, std::string("'") + name + "' must evaluate to a value in the range [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]; value " +
                                std::to_string(*out) + " is not in range");
      }
      return true;
    };
    int64_t y, m, d, h, mi, s, ms;
    const char* ynames = iso ? "isoWeekYear" : "year";
    const char* mname = iso ? "isoWeek" : "month";
    const char* dname = iso ? "isoDayOfWeek" : "day";
    struct P { const char* n; int64_t def; int64_t lo, hi; int64_t* out; };
    P parts[] = {{ynames, 1970, 1, 9999, &y},        {mname, 1, -32768, 32767, &m},
                 {dname, 1, -32768, 32767, &d},      {"hour", 0, -32768, 32767, &h},
                 {"minute", 0, -32768, 32767, &mi},  {"second", 0, -32768, 32767, &s},
                 {"millisecond", 0, -32768, 32767, &ms}};
    for (P& p : parts) {
      ASSIGN_OR_RETURN(bool present, part(p.n, p.def, p.lo, p.hi, p.out));
      if (!present) return Value::Null();
    }
    const Value& tzv = a["timezone"];
    if (!tzv.missing() && tzv.nullish()) return Value::Null();
    ASSIGN_OR_RETURN(TimeZone tz, ZoneOf(op, tzv));
    if (!iso) return Value::Date(tz.FromLocal(y, m, d, h, mi, s, ms));
    // ISO: Monday of week 1 is the Monday on or before January 4th.
    int64_t jan4 = DaysFromCivil(y, 1, 4);
    int64_t jan4_iso_dow = FloorMod(jan4 + 3, 7);  // 0 = Monday
    int64_t days = jan4 - jan4_iso_dow + (m - 1) * 7 + (d - 1);
    int64_t yy;
    int mm, dd;
    CivilFromDays(days, &yy, &mm, &dd);
    return Value::Date(tz.FromLocal(yy, mm, dd, h, mi, s, ms));
  });
}

// ---- $dateAdd / $dateSubtract / $dateDiff / $dateTrunc ----

using Unit = TimeUnit;

StatusWith<Unit> ParseUnit(const std::string& op, const Value& v) {
  if (!v.is_string()) {
    return Error(5439013, op + " requires 'unit' to be a string, but got " + v.TypeName());
  }
  if (std::optional<TimeUnit> unit = ParseTimeUnit(v.str())) return *unit;
  return Error(9, "unknown time unit value: " + std::string(v.str()));
}

int StartOfWeekIndex(const Value& v, const std::string& op, Status* st) {
  // 0 = Sunday .. 6 = Saturday.
  if (v.missing()) return 0;
  static const char* const kDays[][2] = {{"sunday", "sun"},   {"monday", "mon"}, {"tuesday", "tue"},
                                         {"wednesday", "wed"}, {"thursday", "thu"}, {"friday", "fri"},
                                         {"saturday", "sat"}};
  if (v.is_string()) {
    std::string s(v.str());
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (int i = 0; i < 7; ++i) {
      if (s == kDays[i][0] || s == kDays[i][1]) return i;
    }
  }
  *st = Error(5439015, op + " parameter 'startOfWeek' must be a valid day of the week, but got " + v.ToString());
  return 0;
}

// Local days since the epoch of `millis` in `tz`.
int64_t LocalDays(int64_t millis, const TimeZone& tz) {
  return FloorDiv(millis + tz.OffsetAt(millis) * 1000, 86400000);
}

int64_t DiffUnits(int64_t a, int64_t b, Unit u, const TimeZone& tz, int start_of_week) {
  CivilTime ta = tz.ToLocal(a), tb = tz.ToLocal(b);
  switch (u) {
    case Unit::kYear: return tb.year - ta.year;
    case Unit::kQuarter:
      return (tb.year * 4 + (tb.month - 1) / 3) - (ta.year * 4 + (ta.month - 1) / 3);
    case Unit::kMonth: return (tb.year * 12 + tb.month) - (ta.year * 12 + ta.month);
    case Unit::kWeek: {
      // Days since the epoch shifted so that weeks start on start_of_week
      // (1970-01-01 was a Thursday, index 4).
      int64_t da = LocalDays(a, tz) + 4 - start_of_week, db = LocalDays(b, tz) + 4 - start_of_week;
      return FloorDiv(db, 7) - FloorDiv(da, 7);
    }
    case Unit::kDay: return LocalDays(b, tz) - LocalDays(a, tz);
    default: {
      int64_t unit = FixedUnitMillis(u);
      int64_t la = a + tz.OffsetAt(a) * 1000, lb = b + tz.OffsetAt(b) * 1000;
      if (u == Unit::kMillisecond) return b - a;
      return FloorDiv(lb, unit) - FloorDiv(la, unit);
    }
  }
}

int64_t TruncDate(int64_t millis, Unit u, int64_t bin, const TimeZone& tz, int start_of_week) {
  CivilTime t = tz.ToLocal(millis);
  switch (u) {
    case Unit::kYear:
    case Unit::kQuarter:
    case Unit::kMonth: {
      int64_t months_per = u == Unit::kYear ? 12 : u == Unit::kQuarter ? 3 : 1;
      int64_t months = (t.year - 2000) * 12 + (t.month - 1);
      int64_t start = FloorDiv(months, months_per * bin) * months_per * bin;
      return tz.FromLocal(2000 + FloorDiv(start, 12), FloorMod(start, 12) + 1, 1, 0, 0, 0, 0);
    }
    case Unit::kWeek: {
      // Reference: the first start_of_week day on or after 2000-01-01.
      int64_t ref = DaysFromCivil(2000, 1, 1);
      int64_t ref_dow = FloorMod(ref + 4, 7);  // 0 = Sunday
      ref += FloorMod(start_of_week - ref_dow, 7);
      int64_t days = LocalDays(millis, tz);
      int64_t start = ref + FloorDiv(days - ref, 7 * bin) * 7 * bin;
      int64_t y;
      int m, d;
      CivilFromDays(start, &y, &m, &d);
      return tz.FromLocal(y, m, d, 0, 0, 0, 0);
    }
    case Unit::kDay: {
      int64_t ref = DaysFromCivil(2000, 1, 1);
      int64_t days = LocalDays(millis, tz);
      int64_t start = ref + FloorDiv(days - ref, bin) * bin;
      int64_t y;
      int m, d;
      CivilFromDays(start, &y, &m, &d);
      return tz.FromLocal(y, m, d, 0, 0, 0, 0);
    }
    default: {
      int64_t unit = FixedUnitMillis(u) * bin;
      int64_t ref = DaysFromCivil(2000, 1, 1) * 86400000LL;
      int64_t off = tz.OffsetAt(millis) * 1000;
      int64_t local = millis + off;
      int64_t start = ref + FloorDiv(local - ref, unit) * unit;
      return start - off;
    }
  }
}

StatusWith<ExpressionPtr> ParseDateArith(std::string_view name, const bson_iter_t* operand,
                                         ParseContext* ctx) {
  std::string op(name);
  if (name == "$dateAdd" || name == "$dateSubtract") {
    bool subtract = name == "$dateSubtract";
    ASSIGN_OR_RETURN(auto args, ParseArgsObject(op, operand, ctx,
                                                {"startDate", "unit", "amount", "timezone"},
                                                5166400, 5166401));
    for (const char* r : {"startDate", "unit", "amount"}) {
      if (!args.count(r)) return Error(5166402, op + " requires " + r + " to be specified");
    }
    return MakeNamed(std::move(args), [op, subtract](NamedValues& a) -> StatusWith<Value> {
      const Value& start = a["startDate"];
      const Value& unit = a["unit"];
      const Value& amount = a["amount"];
      const Value& tzv = a["timezone"];
      if (start.nullish() || unit.nullish() || amount.nullish() ||
          (!tzv.missing() && tzv.nullish())) {
        return Value::Null();
      }
      auto date = CoerceToDate(start);
      if (!date.ok()) {
        return Error(5166403, op + " requires startDate to be convertible to a date");
      }
      ASSIGN_OR_RETURN(Unit u, ParseUnit(op, unit));
      int64_t n;
      if (!amount.numeric() || !amount.AsInt64Exact(&n)) {
        return Error(5166405, op + " expects integer amount of time units");
      }
      ASSIGN_OR_RETURN(TimeZone tz, ZoneOf(op, tzv));
      return Value::Date(AddTimeUnits(date.value(), u, subtract ? -n : n, tz));
    });
  }
  if (name == "$dateDiff") {
    ASSIGN_OR_RETURN(auto args, ParseArgsObject(op, operand, ctx,
                                                {"startDate", "endDate", "unit", "timezone", "startOfWeek"},
                                                5166301, 5166302));
    for (const char* r : {"startDate", "endDate", "unit"}) {
      if (!args.count(r)) return Error(5166303, std::string("Missing '") + r + "' parameter to $dateDiff");
    }
    return MakeNamed(std::move(args), [op](NamedValues& a) -> StatusWith<Value> {
      const Value& s = a["startDate"];
      const Value& e = a["endDate"];
      const Value& unit = a["unit"];
      const Value& tzv = a["timezone"];
      const Value& sow = a["startOfWeek"];
      if (s.nullish() || e.nullish() || unit.nullish() || (!tzv.missing() && tzv.nullish()) ||
          (!sow.missing() && sow.nullish())) {
        return Value::Null();
      }
      auto sd = CoerceToDate(s);
      if (!sd.ok()) return Error(5166307, "$dateDiff requires 'startDate' to be a date, but got " + s.TypeName());
      auto ed = CoerceToDate(e);
      if (!ed.ok()) return Error(5166307, "$dateDiff requires 'endDate' to be a date, but got " + e.TypeName());
      ASSIGN_OR_RETURN(Unit u, ParseUnit(op, unit));
      ASSIGN_OR_RETURN(TimeZone tz, ZoneOf(op, tzv));
      Status st;
      int wk = u == Unit::kWeek ? StartOfWeekIndex(sow, op, &st) : 0;
      RETURN_IF_ERROR(st);
      return Value::Long(DiffUnits(sd.value(), ed.value(), u, tz, wk));
    });
  }
  // $dateTrunc
  ASSIGN_OR_RETURN(auto args, ParseArgsObject(op, operand, ctx,
                                              {"date", "unit", "binSize", "timezone", "startOfWeek"},
                                              5439007, 5439008));
  for (const char* r : {"date", "unit"}) {
    if (!args.count(r)) return Error(5439009, std::string("Missing '") + r + "' parameter to $dateTrunc");
  }
  return MakeNamed(std::move(args), [op](NamedValues& a) -> StatusWith<Value> {
    const Value& d = a["date"];
    const Value& unit = a["unit"];
    const Value& bin = a["binSize"];
    const Value& tzv = a["timezone"];
    const Value& sow = a["startOfWeek"];
    if (d.nullish() || unit.nullish() || (!bin.missing() && bin.nullish()) ||
        (!tzv.missing() && tzv.nullish()) || (!sow.missing() && sow.nullish())) {
      return Value::Null();
    }
    auto date = CoerceToDate(d);
    if (!date.ok()) {
      return Error(5439012, "$dateTrunc requires 'date' to be a date, but got " + d.TypeName());
    }
    ASSIGN_OR_RETURN(Unit u, ParseUnit(op, unit));
    int64_t n = 1;
    if (!bin.missing() && (!bin.numeric() || !bin.AsInt64Exact(&n) || n <= 0)) {
      return Error(5439017, "$dateTrunc requires 'binSize' to be a 64-bit integer greater than 0, but got value '" + bin.ToString() + "' of type " + bin.TypeName());
    }
    ASSIGN_OR_RETURN(TimeZone tz, ZoneOf(op, tzv));
    Status st;
    int wk = u == Unit::kWeek ? StartOfWeekIndex(sow, op, &st) : 0;
    RETURN_IF_ERROR(st);
    return Value::Date(TruncDate(date.value(), u, n, tz, wk));
  });
}

}  // namespace

StatusWith<ExpressionPtr> ParseDateOp(std::string_view name, const bson_iter_t* operand,
                                      ParseContext* ctx) {
  if (name == "$dateToString") return ParseDateToString(operand, ctx);
  if (name == "$dateFromString") return ParseDateFromString(operand, ctx);
  if (name == "$dateToParts") return ParseDateToParts(operand, ctx);
  if (name == "$dateFromParts") return ParseDateFromParts(operand, ctx);
  if (name == "$dateAdd" || name == "$dateSubtract" || name == "$dateDiff" || name == "$dateTrunc") {
    return ParseDateArith(name, operand, ctx);
  }
  return ParsePart(name, operand, ctx);
}

}  // namespace tigerdoc::agg
