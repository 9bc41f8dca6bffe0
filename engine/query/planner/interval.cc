#include "engine/query/planner/interval.h"

#include <algorithm>
#include <limits>

#include "engine/bson/shell_string.h"
#include "engine/keystring/key_string.h"

namespace tigerdoc::query::planner {
namespace {

thread_local const bson::Collator* t_bounds_collator = nullptr;


std::string Render(const OwnedValue& value) {
  bson_t doc = BSON_INITIALIZER;
  bson_append_value(&doc, "", 0, value.get());
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  bson_iter_next(&it);
  std::string out = bson::ToShellString(&it);
  bson_destroy(&doc);
  return out;
}

OwnedValue OfType(bson_type_t type) {
  bson_value_t v{};
  v.value_type = type;
  return OwnedValue(&v);
}

// Orders interval starts: by key, an inclusive start before an exclusive one.
bool StartsBefore(const Interval& a, const Interval& b) {
  if (a.start_key != b.start_key) return a.start_key < b.start_key;
  return a.start_inclusive && !b.start_inclusive;
}

}  // namespace

OwnedValue MinKeyValue() { return OfType(BSON_TYPE_MINKEY); }
OwnedValue MaxKeyValue() { return OfType(BSON_TYPE_MAXKEY); }
OwnedValue NullValue() { return OfType(BSON_TYPE_NULL); }
OwnedValue UndefinedValue() { return OfType(BSON_TYPE_UNDEFINED); }

OwnedValue DoubleValue(double d) {
  bson_value_t v{};
  v.value_type = BSON_TYPE_DOUBLE;
  v.value.v_double = d;
  return OwnedValue(&v);
}

OwnedValue StringValue(const std::string& s) {
  bson_value_t v{};
  v.value_type = BSON_TYPE_UTF8;
  v.value.v_utf8.str = const_cast<char*>(s.data());
  v.value.v_utf8.len = static_cast<uint32_t>(s.size());
  return OwnedValue(&v);
}

Interval Interval::Make(const bson_value_t* start, bool start_inclusive, const bson_value_t* end,
                        bool end_inclusive) {
  Interval out;
  out.start = OwnedValue(start);
  out.start_inclusive = start_inclusive;
  out.end = OwnedValue(end);
  out.end_inclusive = end_inclusive;
  out.start_key = keystring::Encode(start, t_bounds_collator);
  out.end_key = keystring::Encode(end, t_bounds_collator);
  return out;
}

ScopedBoundsCollator::ScopedBoundsCollator(const bson::Collator* collator)
    : previous_(t_bounds_collator) {
  t_bounds_collator = collator;
}

ScopedBoundsCollator::~ScopedBoundsCollator() { t_bounds_collator = previous_; }

const bson::Collator* ScopedBoundsCollator::Current() { return t_bounds_collator; }

Interval Interval::Point(const bson_value_t* value) { return Make(value, true, value, true); }

Interval Interval::AllValues() {
  return Make(MinKeyValue().get(), true, MaxKeyValue().get(), true);
}

bool Interval::IsEmpty() const {
  if (start_key != end_key) return start_key > end_key;
  return !(start_inclusive && end_inclusive);
}

bool Interval::IsAllValues() const {
  return start_inclusive && end_inclusive && start.type() == BSON_TYPE_MINKEY &&
         end.type() == BSON_TYPE_MAXKEY;
}

bool Interval::Contains(const std::string& key) const {
  if (key < start_key || (key == start_key && !start_inclusive)) return false;
  if (key > end_key || (key == end_key && !end_inclusive)) return false;
  return true;
}

std::string Interval::ToString(bool reversed) const {
  if (reversed) {
    return std::string(end_inclusive ? "[" : "(") + Render(end) + ", " + Render(start) +
           (start_inclusive ? "]" : ")");
  }
  return std::string(start_inclusive ? "[" : "(") + Render(start) + ", " + Render(end) +
         (end_inclusive ? "]" : ")");
}

OrderedIntervalList::OrderedIntervalList(std::vector<Interval> intervals) {
  intervals.erase(std::remove_if(intervals.begin(), intervals.end(),
                                 [](const Interval& i) { return i.IsEmpty(); }),
                  intervals.end());
  std::sort(intervals.begin(), intervals.end(), StartsBefore);
  for (Interval& next : intervals) {
    if (!intervals_.empty()) {
      Interval& last = intervals_.back();
      // Overlapping or touching ([1, 3) and [3, 5]) intervals merge.
      bool touches = next.start_key < last.end_key ||
                     (next.start_key == last.end_key && (last.end_inclusive || next.start_inclusive));
      if (touches) {
        if (next.end_key > last.end_key ||
            (next.end_key == last.end_key && next.end_inclusive && !last.end_inclusive)) {
          last.end = next.end;
          last.end_key = next.end_key;
          last.end_inclusive = next.end_inclusive;
        }
        continue;
      }
    }
    intervals_.push_back(std::move(next));
  }
}

OrderedIntervalList OrderedIntervalList::AllValues() {
  return OrderedIntervalList(std::vector<Interval>{Interval::AllValues()});
}

bool OrderedIntervalList::AllPoints() const {
  return std::all_of(intervals_.begin(), intervals_.end(),
                     [](const Interval& i) { return i.IsPoint(); });
}

bool OrderedIntervalList::ContainsKey(const std::string& key) const {
  return std::any_of(intervals_.begin(), intervals_.end(),
                     [&](const Interval& i) { return i.Contains(key); });
}

bool OrderedIntervalList::IsSubsetOf(const OrderedIntervalList& other) const {
  // A ⊆ B  <=>  A ∩ B == A; intersection keeps A's pieces, so compare counts
  // and ends.
  OrderedIntervalList both = Intersect(other);
  if (both.size() != size()) return false;
  for (size_t i = 0; i < size(); ++i) {
    const Interval& a = intervals_[i];
    const Interval& b = both.intervals_[i];
    if (a.start_key != b.start_key || a.start_inclusive != b.start_inclusive ||
        a.end_key != b.end_key || a.end_inclusive != b.end_inclusive) {
      return false;
    }
  }
  return true;
}

OrderedIntervalList OrderedIntervalList::Intersect(const OrderedIntervalList& other) const {
  std::vector<Interval> out;
  size_t i = 0, j = 0;
  while (i < intervals_.size() && j < other.intervals_.size()) {
    const Interval& a = intervals_[i];
    const Interval& b = other.intervals_[j];
    const Interval& later_start = StartsBefore(a, b) ? b : a;
    // The earlier end (an exclusive end before an inclusive one at a tie).
    bool a_ends_first = a.end_key < b.end_key ||
                        (a.end_key == b.end_key && !a.end_inclusive);
    const Interval& earlier_end = a_ends_first ? a : b;
    Interval piece = Interval::Make(later_start.start.get(), later_start.start_inclusive,
                                    earlier_end.end.get(), earlier_end.end_inclusive);
    if (!piece.IsEmpty()) out.push_back(std::move(piece));
    if (a_ends_first) {
      ++i;
    } else {
      ++j;
    }
  }
  return OrderedIntervalList(std::move(out));
}

OrderedIntervalList OrderedIntervalList::Union(const OrderedIntervalList& other) const {
  std::vector<Interval> all = intervals_;
  all.insert(all.end(), other.intervals_.begin(), other.intervals_.end());
  return OrderedIntervalList(std::move(all));
}

OrderedIntervalList OrderedIntervalList::Complement() const {
  std::vector<Interval> out;
  OwnedValue from = MinKeyValue();
  bool from_inclusive = true;
  for (const Interval& i : intervals_) {
    // No value lies strictly between undefined and null.
    const bool nothing_between = !from_inclusive && i.start_inclusive &&
                                 from.type() == BSON_TYPE_UNDEFINED &&
                                 i.start.type() == BSON_TYPE_NULL;
    if (!nothing_between) {
      out.push_back(Interval::Make(from.get(), from_inclusive, i.start.get(), !i.start_inclusive));
    }
    from = i.end;
    from_inclusive = !i.end_inclusive;
  }
  out.push_back(Interval::Make(from.get(), from_inclusive, MaxKeyValue().get(), true));
  return OrderedIntervalList(std::move(out));
}

std::vector<std::string> OrderedIntervalList::ToStrings(bool reversed) const {
  std::vector<std::string> out;
  for (const Interval& i : intervals_) out.push_back(i.ToString(reversed));
  if (reversed) std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace tigerdoc::query::planner
