#include "engine/agg/window/window_bounds.h"

#include <algorithm>

#include "engine/agg/numeric.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {
namespace {

Status ParseError(const std::string& message) {
  return Error(static_cast<int>(ErrorCode::kFailedToParse), message);
}

// One bound: "unbounded", "current", or a number that `check` accepts
// (MongoDB's messages; every one FailedToParse).
enum class BoundKind { kDocuments, kRange, kRangeWithUnit };

StatusWith<WindowBound> ParseBound(const Value& v, BoundKind kind) {
  WindowBound b;
  if (v.is_string()) {
    if (v.str() == "unbounded") return b;
    if (v.str() == "current") {
      b.kind = WindowBound::kCurrent;
      return b;
    }
    return ParseError("Window bounds must be 'unbounded', 'current', or a number.");
  }
  int64_t n;
  switch (kind) {
    case BoundKind::kDocuments:
      if (!v.numeric() || !v.AsInt64Exact(&n)) {
        return ParseError("Numeric document-based bounds must be an integer");
      }
      break;
    case BoundKind::kRangeWithUnit:
      if (!v.numeric() || !v.AsInt64Exact(&n)) {
        return ParseError("With 'unit', range-based bounds must be an integer");
      }
      break;
    case BoundKind::kRange:
      if (!v.numeric()) return ParseError("Range-based bounds expression must be a number");
      break;
  }
  b.kind = WindowBound::kValue;
  b.value = v;
  return b;
}

// Position ordering of two bounds of one kind: -1 / 0 / 1, unbounded lower
// first (for the lower <= upper check).
int BoundOrder(const WindowBound& a, const WindowBound& b, bool a_lower, bool b_lower) {
  auto num = [](const WindowBound& x) { return x.kind == WindowBound::kCurrent ? Value::Int(0) : x.value; };
  if (a.kind == WindowBound::kUnbounded || b.kind == WindowBound::kUnbounded) {
    if (a.kind == b.kind) return a_lower == b_lower ? 0 : (a_lower ? -1 : 1);
    if (a.kind == WindowBound::kUnbounded) return a_lower ? -1 : 1;
    return b_lower ? 1 : -1;
  }
  return NumCompare(num(a), num(b));
}

// The sortBy value moved by `offset` (a number; dates need `unit`).
StatusWith<Value> Shift(const Value& v, const Value& offset, const std::optional<TimeUnit>& unit) {
  if (unit) {
    if (v.type() != BSON_TYPE_DATE_TIME) {
      return Error(5429513, "Invalid range: Expected the sortBy field to be a Date, but it was " + v.TypeName());
    }
    int64_t n;
    if (!offset.AsInt64Exact(&n)) {
      return Error(5429412, "With 'unit', range-based bounds must be an integer");
    }
    return Value::Date(AddTimeUnits(v.date(), *unit, n));
  }
  if (!v.numeric()) {
    return Error(5429414, "Invalid range: Expected the sortBy field to be a number, but it was " + v.TypeName());
  }
  return NumAdd(v, offset);
}

}  // namespace

// MongoDB's WindowBounds::parse, check for check: 9 FailedToParse for the
// shape, 5339900 lower > upper, 5339901 documents without sortBy, 5339902
// range without a single sortBy field, 8947401 range over a descending sortBy.
StatusWith<WindowBounds> WindowBounds::Parse(const bson_iter_t* it, const SortByShape& sort_by) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) return ParseError("'window' field must be an object");
  Value window(it);
  std::optional<Value> documents, range, unit;
  size_t fields = 0;
  for (auto& [name, v] : window.Fields()) {
    ++fields;
    if (name == "documents" && !documents) documents = std::move(v);
    if (name == "range" && !range) range = std::move(v);
    if (name == "unit" && !unit) unit = std::move(v);
  }
  if (documents && range) {
    return ParseError("Window bounds can specify either 'documents' or 'unit', not both.");
  }
  if (!range && unit) return ParseError("Window bounds can only specify 'unit' with range-based bounds.");
  WindowBounds out;
  if (!range && !documents) {
    if (fields != 0) {
      return ParseError("'window' field can only contain 'documents' as the only argument or "
                        "'range' with an optional 'unit' field");
    }
    return out;  // {}: the whole partition
  }
  auto unpack = [&](const Value& e, BoundKind kind) -> Status {
    std::vector<Value> elems = e.is_array() ? e.Elements() : std::vector<Value>();
    if (!e.is_array() || elems.size() != 2) {
      return ParseError("Window bounds must be a 2-element array: " + std::string(documents ? "documents" : "range") +
                        ": " + e.ToString());
    }
    ASSIGN_OR_RETURN(out.lower, ParseBound(elems[0], kind));
    ASSIGN_OR_RETURN(out.upper, ParseBound(elems[1], kind));
    bool bounded_both = out.lower.kind != WindowBound::kUnbounded && out.upper.kind != WindowBound::kUnbounded;
    if (bounded_both && BoundOrder(out.lower, out.upper, true, false) > 0) {
      auto show = [](const WindowBound& b) { return b.kind == WindowBound::kCurrent ? std::string("0") : b.value.ToString(); };
      return Error(5339900, "Lower bound must not exceed upper bound: [" + show(out.lower) + ", " + show(out.upper) + "]");
    }
    return Status::OK();
  };
  if (documents) {
    if (fields != 1) return ParseError("'window' field that specifies documents cannot have other fields");
    RETURN_IF_ERROR(unpack(*documents, BoundKind::kDocuments));
    if (!out.unbounded_both() && sort_by.fields == 0) {
      return Error(5339901, "Document-based bounds require a sortBy");
    }
    return out;
  }
  out.range = true;
  if (unit) {
    if (fields != 2) return ParseError("'window' field that specifies unit cannot have other fields besides 'range'");
    if (!unit->is_string()) return ParseError("'unit' must be a string");
    std::optional<TimeUnit> parsed = ParseTimeUnit(unit->str());
    if (!parsed) return ParseError("unknown time unit value: " + std::string(unit->str()));
    RETURN_IF_ERROR(unpack(*range, BoundKind::kRangeWithUnit));
    out.unit = parsed;
  } else {
    if (fields != 1) return ParseError("'window' field that specifies range cannot have other fields besides 'unit'");
    RETURN_IF_ERROR(unpack(*range, BoundKind::kRange));
  }
  if (sort_by.fields != 1) return Error(5339902, "Range-based bounds require sortBy a single field");
  if (sort_by.descending) return Error(8947401, "Range-based bounds require an ascending sortBy");
  return out;
}

Status WindowBounds::CheckRangeValue(const Value& v) const {
  if (!unit && v.type() == BSON_TYPE_DATE_TIME) {
    return Error(5429413, "Invalid range: For windows that involve date or time ranges, a unit must be provided.");
  }
  if (unit && v.type() != BSON_TYPE_DATE_TIME) {
    return Error(5429513, "Invalid range: Expected the sortBy field to be a Date, but it was " + v.TypeName());
  }
  if (!unit && !v.numeric()) {
    return Error(5429414, "Invalid range: Expected the sortBy field to be a number, but it was " + v.TypeName());
  }
  return Status::OK();
}

Status WindowBounds::Resolve(size_t i, size_t n, const std::vector<Value>& sort_values,
                             bool descending, size_t* begin, size_t* end) const {
  if (!range) {
    auto pos = [&](const WindowBound& b, bool lower) -> int64_t {
      if (b.kind == WindowBound::kUnbounded) return lower ? 0 : static_cast<int64_t>(n);
      int64_t off = 0;
      if (b.kind == WindowBound::kValue) b.value.AsInt64Exact(&off);
      return static_cast<int64_t>(i) + off + (lower ? 0 : 1);
    };
    int64_t lo = std::clamp<int64_t>(pos(lower, true), 0, static_cast<int64_t>(n));
    int64_t hi = std::clamp<int64_t>(pos(upper, false), 0, static_cast<int64_t>(n));
    *begin = static_cast<size_t>(lo);
    *end = static_cast<size_t>(std::max(lo, hi));
    return Status::OK();
  }
  // Range: rows whose sortBy value v satisfies cur+lower <= v <= cur+upper
  // form one run of the sorted partition.
  const Value& cur = sort_values[i];
  std::optional<Value> lo, hi;
  if (lower.kind != WindowBound::kUnbounded) {
    if (lower.kind == WindowBound::kCurrent) {
      ASSIGN_OR_RETURN(lo, Shift(cur, Value::Int(0), unit));
    } else {
      ASSIGN_OR_RETURN(lo, Shift(cur, lower.value, unit));
    }
  }
  if (upper.kind != WindowBound::kUnbounded) {
    if (upper.kind == WindowBound::kCurrent) {
      ASSIGN_OR_RETURN(hi, Shift(cur, Value::Int(0), unit));
    } else {
      ASSIGN_OR_RETURN(hi, Shift(cur, upper.value, unit));
    }
  }
  // Sorted rows: those before the window, then the window, then the rest.
  auto vals_begin = sort_values.begin(), vals_end = sort_values.begin() + static_cast<ptrdiff_t>(n);
  auto before = [&](const Value& v) {
    return descending ? (hi && Compare(v, *hi) > 0) : (lo && Compare(v, *lo) < 0);
  };
  auto not_after = [&](const Value& v) {
    return descending ? (!lo || Compare(v, *lo) >= 0) : (!hi || Compare(v, *hi) <= 0);
  };
  size_t b = static_cast<size_t>(std::partition_point(vals_begin, vals_end, before) - vals_begin);
  size_t e = static_cast<size_t>(std::partition_point(vals_begin, vals_end, not_after) - vals_begin);
  e = std::max(b, e);
  *begin = b;
  *end = e;
  return Status::OK();
}

}  // namespace tigerdoc::agg
