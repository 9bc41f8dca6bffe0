// The formatless date parser of $dateFromString, $toDate and $convert: what
// MongoDB's lenient parser (timelib's strtotime, less its relative phrases)
// accepts in the forms applications send. Grammar, whitespace between parts
// optional where unambiguous:
//
//   string   := date [ ("T" | " ") time ] [ zone ]
//   date     := YYYY "-" MM "-" DD | YYYY "/" MM "/" DD | YYYY "-" Mon "-" DD
//             | Month D[st|nd|rd|th] [","] YYYY | D[st|nd|rd|th] Month [","] YYYY
//             | M "/" D "/" YY[YY]          (American; YY < 70 is 20YY)
//             | DD "-" MM "-" YYYY
//   time     := HH ":" MM [ (":" | ".") SS [ "." fraction ] ] [ am | pm ]
//             | HH (am | pm) | "noon" | "midnight"
//   zone     := "Z" | ("+" | "-") HH [":"] [MM] | ("GMT" | "UTC") [ offset ]
//             | abbreviation (EST, CEST, BST, ...) | military letter
//
// A zone name ("Europe/Amsterdam") in the string is refused, as MongoDB does;
// a zone in the string together with a `timezone` argument too.
// A string that has a time but no full date is "an incomplete date/time
// string"; anything else unparsed is "Error parsing date string". Both are
// ConversionFailure (241), which onError catches.

#include <cctype>
#include <optional>
#include <string>

#include "engine/agg/expression_context.h"
#include "engine/agg/expressions/date_util.h"

namespace tigerdoc::agg {
namespace {

constexpr const char* kMonths[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                   "jul", "aug", "sep", "oct", "nov", "dec"};

// Zone abbreviations timelib knows and their UTC offsets in minutes (the
// daylight-saving ones already include the hour).
struct Abbreviation {
  const char* name;
  int minutes;
};
constexpr Abbreviation kAbbreviations[] = {
    {"utc", 0},     {"gmt", 0},     {"ut", 0},     {"wet", 0},     {"west", 60},
    {"bst", 60},    {"cet", 60},    {"cest", 120}, {"met", 60},    {"mest", 120},
    {"eet", 120},   {"eest", 180},  {"msk", 180},  {"ist", 330},   {"jst", 540},
    {"kst", 540},   {"hkt", 480},   {"aest", 600}, {"aedt", 660},  {"acst", 570},
    {"awst", 480},  {"nzst", 720},  {"nzdt", 780}, {"est", -300},  {"edt", -240},
    {"cst", -360},  {"cdt", -300},  {"mst", -420}, {"mdt", -360},  {"pst", -480},
    {"pdt", -420},  {"akst", -540}, {"akdt", -480}, {"hst", -600}, {"ast", -240},
    {"adt", -180},  {"nst", -210},  {"ndt", -150},
};

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}

  bool AtEnd() const { return p_ >= s_.size(); }
  size_t pos() const { return p_; }
  void Reset(size_t p) { p_ = p; }
  char Peek() const { return AtEnd() ? '\0' : s_[p_]; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++p_;
    return true;
  }
  bool EatSpaces() {
    size_t start = p_;
    while (!AtEnd() && (s_[p_] == ' ' || s_[p_] == '\t')) ++p_;
    return p_ > start;
  }
  // Between min and max digits; their count in *count.
  bool Number(int min, int max, int64_t* out, int* count = nullptr) {
    size_t start = p_;
    int64_t v = 0;
    while (!AtEnd() && p_ - start < static_cast<size_t>(max) &&
           std::isdigit(static_cast<unsigned char>(s_[p_]))) {
      v = v * 10 + (s_[p_++] - '0');
    }
    const int n = static_cast<int>(p_ - start);
    if (n < min || (!AtEnd() && std::isdigit(static_cast<unsigned char>(s_[p_])))) {
      p_ = start;
      return false;
    }
    *out = v;
    if (count) *count = n;
    return true;
  }
  // A run of letters, lower-cased.
  std::string Word() {
    std::string w;
    while (!AtEnd() && std::isalpha(static_cast<unsigned char>(s_[p_]))) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(s_[p_++])));
    }
    return w;
  }
  std::string_view Rest() const { return s_.substr(std::min(p_, s_.size())); }

 private:
  std::string_view s_;
  size_t p_ = 0;
};

// 1..12 for a month name or its three-letter prefix ("jul", "july").
int MonthNumber(const std::string& w) {
  if (w.size() < 3) return 0;
  for (int i = 0; i < 12; ++i) {
    if (w.compare(0, 3, kMonths[i]) == 0) {
      static constexpr const char* kFull[] = {"january", "february", "march",     "april",
                                              "may",     "june",     "july",      "august",
                                              "september", "october", "november", "december"};
      const std::string full = kFull[i];
      if (w.size() == 3 || full == w || (i == 8 && w == "sept")) return i + 1;
    }
  }
  return 0;
}

struct Parsed {
  int64_t year = 0, month = 0, day = 0;
  bool have_date = false;
  int64_t hour = 0, minute = 0, second = 0, millis = 0;
  bool have_time = false;
  std::optional<int64_t> offset_minutes;  // a fixed offset written in the string
};

void SkipOrdinal(Scanner* sc) {
  size_t at = sc->pos();
  std::string w = sc->Word();
  if (w != "st" && w != "nd" && w != "rd" && w != "th") sc->Reset(at);
}

bool ParseDate(Scanner* sc, Parsed* out) {
  const size_t start = sc->pos();
  int64_t a = 0, b = 0, c = 0;
  int a_digits = 0, c_digits = 0;
  // Leading number: YYYY-..., YYYY/..., M/D/Y, DD-MM-YYYY, D Month YYYY.
  if (sc->Number(1, 4, &a, &a_digits)) {
    if (a_digits == 4 && (sc->Peek() == '-' || sc->Peek() == '/')) {
      const char sep = sc->Peek();
      sc->Eat(sep);
      if (sc->Number(1, 2, &b)) {
        if (sc->Eat(sep) && sc->Number(1, 2, &c)) {
          out->year = a, out->month = b, out->day = c, out->have_date = true;
          return true;
        }
      } else if (sep == '-') {
        const int month = MonthNumber(sc->Word());
        if (month && sc->Eat('-') && sc->Number(1, 2, &c)) {
          out->year = a, out->month = month, out->day = c, out->have_date = true;
          return true;
        }
      }
    } else if (a_digits <= 2 && sc->Eat('/')) {
      if (sc->Number(1, 2, &b) && sc->Eat('/') && sc->Number(2, 4, &c, &c_digits) &&
          c_digits != 3) {
        if (c_digits == 2) c += c < 70 ? 2000 : 1900;
        out->year = c, out->month = a, out->day = b, out->have_date = true;
        return true;
      }
    } else if (a_digits <= 2 && sc->Eat('-')) {
      if (sc->Number(1, 2, &b) && sc->Eat('-') && sc->Number(4, 4, &c)) {
        out->year = c, out->month = b, out->day = a, out->have_date = true;
        return true;
      }
    } else if (a_digits <= 2) {
      // D[th] Month[,] YYYY
      SkipOrdinal(sc);
      sc->EatSpaces();
      const int month = MonthNumber(sc->Word());
      if (month) {
        out->month = month, out->day = a;
        sc->Eat(',');
        sc->EatSpaces();
        if (sc->Number(4, 4, &c)) {
          out->year = c, out->have_date = true;
          return true;
        }
        return true;  // day and month without a year: incomplete
      }
    }
    sc->Reset(start);
    return false;
  }
  // Month D[th][,] YYYY
  const int month = MonthNumber(sc->Word());
  if (!month) {
    sc->Reset(start);
    return false;
  }
  sc->EatSpaces();
  if (!sc->Number(1, 2, &b)) {
    sc->Reset(start);
    return false;
  }
  SkipOrdinal(sc);
  out->month = month, out->day = b;
  sc->Eat(',');
  const size_t before_year = sc->pos();
  sc->EatSpaces();
  if (sc->Number(4, 4, &c)) {
    out->year = c, out->have_date = true;
  } else {
    sc->Reset(before_year);
  }
  return true;
}

// "am"/"pm" after an hour: 12am is midnight, 12pm noon.
bool ApplyMeridian(Scanner* sc, Parsed* out) {
  const size_t at = sc->pos();
  sc->EatSpaces();
  std::string w = sc->Word();
  if (w == "am" || w == "pm") {
    if (out->hour < 1 || out->hour > 12) return false;
    if (w == "am" && out->hour == 12) out->hour = 0;
    if (w == "pm" && out->hour != 12) out->hour += 12;
    return true;
  }
  sc->Reset(at);
  return true;
}

bool ParseTime(Scanner* sc, Parsed* out) {
  const size_t start = sc->pos();
  {
    std::string w = sc->Word();
    if (w == "noon" || w == "midnight") {
      out->hour = w == "noon" ? 12 : 0;
      out->have_time = true;
      return true;
    }
    sc->Reset(start);
  }
  int64_t h = 0, m = 0, s = 0;
  if (!sc->Number(1, 2, &h)) return false;
  out->hour = h;
  if (!sc->Eat(':')) {
    // "11am": an hour needs its meridian.
    const size_t at = sc->pos();
    sc->EatSpaces();
    std::string w = sc->Word();
    sc->Reset(at);
    if (w != "am" && w != "pm") {
      sc->Reset(start);
      return false;
    }
    out->have_time = true;
    return ApplyMeridian(sc, out);
  }
  if (!sc->Number(2, 2, &m)) return false;
  out->minute = m;
  if (sc->Peek() == ':' || sc->Peek() == '.') {
    const size_t at = sc->pos();
    sc->Eat(sc->Peek());
    if (sc->Number(2, 2, &s)) {
      out->second = s;
      if (sc->Eat('.')) {
        int64_t frac = 0;
        int digits = 0;
        if (!sc->Number(1, 9, &frac, &digits)) return false;
        while (digits > 3) frac /= 10, --digits;
        while (digits < 3) frac *= 10, ++digits;
        out->millis = frac;
      }
    } else {
      sc->Reset(at);
    }
  }
  out->have_time = true;
  return ApplyMeridian(sc, out);
}

// "+03", "+0330", "+03:30", "-5": minutes east of UTC.
bool ParseOffset(Scanner* sc, int64_t* minutes) {
  const size_t start = sc->pos();
  const int sign = sc->Eat('-') ? -1 : (sc->Eat('+') ? 1 : 0);
  if (!sign) return false;
  int64_t v = 0;
  int digits = 0;
  if (!sc->Number(1, 4, &v, &digits)) {
    sc->Reset(start);
    return false;
  }
  int64_t h = v, m = 0;
  if (digits > 2) {
    h = v / 100, m = v % 100;
  } else if (sc->Eat(':')) {
    if (!sc->Number(2, 2, &m)) {
      sc->Reset(start);
      return false;
    }
  }
  if (h > 23 || m > 59) return false;
  *minutes = sign * (h * 60 + m);
  return true;
}

bool ParseZone(Scanner* sc, Parsed* out) {
  const size_t start = sc->pos();
  int64_t minutes = 0;
  if (ParseOffset(sc, &minutes)) {
    out->offset_minutes = minutes;
    return true;
  }
  // A zone name: letters, '/', '_' (Region/City).
  size_t end = start;
  std::string_view rest = sc->Rest();
  while (end - start < rest.size() &&
         (std::isalpha(static_cast<unsigned char>(rest[end - start])) ||
          rest[end - start] == '/' || rest[end - start] == '_')) {
    ++end;
  }
  std::string name(rest.substr(0, end - start));
  if (name.empty()) return false;
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  sc->Reset(end);
  // MongoDB refuses zone names inside the string ("... Europe/Amsterdam"):
  // only offsets and abbreviations are read there.
  if (name.find('/') != std::string::npos) return false;
  if (lower == "gmt" || lower == "utc") {
    if (ParseOffset(sc, &minutes)) {
      out->offset_minutes = minutes;
    } else {
      out->offset_minutes = 0;
    }
    return true;
  }
  for (const Abbreviation& a : kAbbreviations) {
    if (lower == a.name) {
      out->offset_minutes = a.minutes;
      return true;
    }
  }
  // Military zones: A-I are +1..+9, K-M +10..+12, N-Y -1..-12, Z is UTC.
  if (lower.size() == 1 && lower[0] != 'j') {
    const char c = lower[0];
    if (c == 'z') out->offset_minutes = 0;
    else if (c <= 'i') out->offset_minutes = (c - 'a' + 1) * 60;
    else if (c <= 'm') out->offset_minutes = (c - 'k' + 10) * 60;
    else out->offset_minutes = -(c - 'n' + 1) * 60;
    return true;
  }
  return false;
}

}  // namespace

StatusWith<int64_t> ParseDateString(std::string_view s, const TimeZone& tz, bool timezone_given) {
  auto fail = [&] { return Error(241, "Error parsing date string '" + std::string(s) + "'"); };
  Scanner sc(s);
  Parsed parsed;
  sc.EatSpaces();
  const bool date_found = ParseDate(&sc, &parsed);
  if (date_found) {
    const size_t before_time = sc.pos();
    const bool t = sc.Eat('T');
    if (!t) sc.EatSpaces();
    if (!ParseTime(&sc, &parsed)) {
      if (t) return fail();
      sc.Reset(before_time);
    }
  } else if (!ParseTime(&sc, &parsed)) {
    return fail();
  }
  sc.EatSpaces();
  const size_t zone_start = sc.pos();
  if (!sc.AtEnd() && !ParseZone(&sc, &parsed)) return fail();
  const std::string zone_text(s.substr(zone_start, sc.pos() - zone_start));
  sc.EatSpaces();
  if (!sc.AtEnd()) return fail();
  if (!parsed.have_date) {
    std::string missing;
    auto add = [&](bool absent, const char* name) {
      if (!absent) return;
      if (!missing.empty()) missing += ", ";
      missing += std::string("'") + name + "'";
    };
    add(parsed.year == 0, "year");
    add(parsed.month == 0, "month");
    add(parsed.day == 0, "day");
    return Error(241, "an incomplete date/time string has been found, with elements missing: " +
                          missing);
  }
  if (parsed.month < 1 || parsed.month > 12 || parsed.day < 1 || parsed.day > 31 ||
      parsed.hour > 24 || parsed.minute > 59 || parsed.second > 60) {
    return fail();
  }
  if (parsed.offset_minutes && timezone_given) {
    return Error(241, "you cannot pass in a date/time string with time zone information ('" +
                          zone_text + "') together with a timezone argument");
  }
  if (parsed.offset_minutes) {
    return TimeZone().FromLocal(parsed.year, parsed.month, parsed.day, parsed.hour,
                                parsed.minute - *parsed.offset_minutes, parsed.second,
                                parsed.millis);
  }
  return tz.FromLocal(parsed.year, parsed.month, parsed.day, parsed.hour, parsed.minute,
                        parsed.second, parsed.millis);
}

}  // namespace tigerdoc::agg
