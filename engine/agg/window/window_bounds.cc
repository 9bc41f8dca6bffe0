#include "engine/agg/window/window_bounds.h"

#include <algorithm>

#include "engine/agg/numeric.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {
namespace {

Status ParseError(const std::string& message) {
  return Error(static_cast<int>(ErrorCode::kFailedToParse), message);
}

StatusWith<WindowBound> ParseBound(const Value& v, bool range) {
  WindowBound b;
  if (v.is_string() && v.str() == "unbounded") return b;
  if (v.is_string() && v.str() == "current") {
    b.kind = WindowBound::kCurrent;
    return b;
  }
  if (v.numeric()) {
    int64_t n;
    if (!range && !v.AsInt64Exact(&n)) {
      return ParseError("Numeric document-based bounds must be an integer");
    }
    b.kind = WindowBound::kValue;
    b.value = v;
    return b;
  }
  return ParseError(std::string(range ? "Range-based" : "Document-based") +
                    " bounds must be 'unbounded', 'current', or a number");
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

StatusWith<WindowBounds> WindowBounds::Parse(const bson_iter_t* it, const SortByShape& sort_by) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) return ParseError("'window' field must be an object");
  bson_t obj = bson::SubDocumentView(it);
  WindowBounds out;
  bool have_documents = false, have_range = false;
  std::optional<Value> unit_value;
  bson_iter_t f;
  bson_iter_init(&f, &obj);
  while (bson_iter_next(&f)) {
    std::string key = bson_iter_key(&f);
    if (key == "documents" || key == "range") {
      (key == "documents" ? have_documents : have_range) = true;
      Value arr(&f);
      std::vector<Value> e = arr.is_array() ? arr.Elements() : std::vector<Value>();
      if (!arr.is_array() || e.size() != 2) {
        return ParseError("Window bounds must be a 2-element array: " + key + ": " + arr.ToString());
      }
      bool range = key == "range";
      ASSIGN_OR_RETURN(out.lower, ParseBound(e[0], range));
      ASSIGN_OR_RETURN(out.upper, ParseBound(e[1], range));
    } else if (key == "unit") {
      unit_value = Value(&f);
    } else {
      return ParseError("'window' field can only contain 'documents' as the only argument or "
                        "'range' with an optional 'unit' field");
    }
  }
  if (have_documents == have_range) {
    return ParseError("'window' field can only contain 'documents' as the only argument or "
                      "'range' with an optional 'unit' field");
  }
  out.range = have_range;
  if (unit_value) {
    if (!out.range) return ParseError("'unit' is only valid with 'range', not 'documents'");
    if (!unit_value->is_string() || !ParseTimeUnit(unit_value->str())) {
      return ParseError("'unit' must be a string naming a time unit: " + unit_value->ToString());
    }
    out.unit = ParseTimeUnit(unit_value->str());
  }
  if (out.lower.kind == WindowBound::kUnbounded && out.upper.kind == WindowBound::kUnbounded) {
    // The whole partition: no sortBy needed.
  } else if (out.range) {
    if (sort_by.fields != 1) {
      return ParseError("Range-based bounds require sortBy a single field");
    }
  } else if (sort_by.fields == 0) {
    return ParseError("Document-based bounds require a sortBy");
  }
  bool bounded_both = out.lower.kind != WindowBound::kUnbounded && out.upper.kind != WindowBound::kUnbounded;
  if (bounded_both && BoundOrder(out.lower, out.upper, true, false) > 0) {
    return ParseError("Lower bound must not exceed upper bound");
  }
  return out;
}

Status WindowBounds::CheckRangeValue(const Value& v) const {
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
