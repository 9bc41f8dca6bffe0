// Array operators: $arrayElemAt $arrayToObject $concatArrays $first $in
// $indexOfArray $isArray $last $range $reverseArray $size $slice $sortArray
// $zip.

#include <algorithm>
#include <string>

#include "engine/agg/expressions/operator_table.h"
#include "engine/query/sort.h"

namespace tigerdoc::agg {
namespace {

bool AsInt32(const Value& v, int64_t* out) {
  return v.numeric() && v.AsInt64Exact(out) && *out >= INT32_MIN && *out <= INT32_MAX;
}

StatusWith<Value> ElemAt(const Value& arr, int64_t idx) {
  std::vector<Value> e = arr.Elements();
  int64_t n = static_cast<int64_t>(e.size());
  if (idx < 0) idx += n;
  if (idx < 0 || idx >= n) return Value::Missing();
  return e[idx];
}

StatusWith<Value> ArrayToObject(const Value& in) {
  if (in.nullish()) return Value::Null();
  if (!in.is_array()) {
    return Error(40386, "$arrayToObject requires an array input, found: " + in.TypeName());
  }
  std::vector<std::pair<std::string, Value>> fields;
  auto put = [&fields](std::string key, Value v) {
    for (auto& f : fields) {
      if (f.first == key) {
        f.second = std::move(v);
        return;
      }
    }
    fields.emplace_back(std::move(key), std::move(v));
  };
  std::vector<Value> elems = in.Elements();
  if (elems.empty()) return MakeDocument({});
  bool pairs = elems[0].is_array();
  for (const Value& e : elems) {
    if (pairs) {
      if (!e.is_array()) {
        return Error(40391, "$arrayToObject requires a consistent input format. Elements must "
                            "all be arrays or all be objects. Array was detected, now found: " +
                                e.TypeName());
      }
      std::vector<Value> kv = e.Elements();
      if (kv.size() != 2) {
        return Error(40397, "$arrayToObject requires an array of size 2 arrays,found array of size: " +
                                std::to_string(kv.size()));
      }
      if (!kv[0].is_string()) {
        return Error(40395, "$arrayToObject requires an array of key-value pairs, where the key "
                            "must be of type string. Found key type: " + kv[0].TypeName());
      }
      std::string key(kv[0].str());
      if (key.find('\0') != std::string::npos) {
        return Error(4940400, "Key field cannot contain an embedded null byte");
      }
      put(std::move(key), std::move(kv[1]));
    } else {
      if (!e.is_document()) {
        if (e.is_array()) {
          return Error(40391, "$arrayToObject requires a consistent input format. Elements must "
                              "all be arrays or all be objects. Object was detected, now found: " +
                                  e.TypeName());
        }
        return Error(40398, "Unrecognised input type format for $arrayToObject: " + e.TypeName());
      }
      auto f = e.Fields();
      if (f.size() != 2) {
        return Error(40392, "$arrayToObject requires an object keys of 'k' and 'v'. Found "
                            "incorrect number of keys:" + std::to_string(f.size()));
      }
      const Value* k = nullptr;
      const Value* v = nullptr;
      for (const auto& [name, val] : f) {
        if (name == "k") k = &val;
        if (name == "v") v = &val;
      }
      if (!k || !v) {
        return Error(40393, "$arrayToObject requires an object with keys 'k' and 'v'. Missing "
                            "either or both keys from: " + e.ToString());
      }
      if (!k->is_string()) {
        return Error(40394, "$arrayToObject requires an object with keys 'k' and 'v', where "
                            "the value of 'k' must be of type string. Found type: " + k->TypeName());
      }
      put(std::string(k->str()), *v);
    }
  }
  return MakeDocument(fields);
}

StatusWith<Value> Slice(std::vector<Value>& a) {
  if (a[0].nullish()) return Value::Null();
  if (!a[0].is_array()) {
    return Error(28724, "First argument to $slice must be an array, but is of type: " + a[0].TypeName());
  }
  for (size_t i = 1; i < a.size(); ++i) {
    if (a[i].nullish()) return Value::Null();
  }
  int64_t x, y = 0;
  if (!a[1].numeric()) {
    return Error(28725, "Second argument to $slice must be a numeric value, but is of type: " + a[1].TypeName());
  }
  if (!AsInt32(a[1], &x)) {
    return Error(28726, "Second argument to $slice can't be represented as a 32-bit integer: " + a[1].ToString());
  }
  std::vector<Value> e = a[0].Elements();
  int64_t n = static_cast<int64_t>(e.size());
  int64_t start, count;
  if (a.size() == 2) {
    if (x >= 0) {
      start = 0;
      count = x;
    } else {
      start = std::max<int64_t>(0, n + x);
      count = n;
    }
  } else {
    if (!a[2].numeric()) {
      return Error(28727, "Third argument to $slice must be numeric, but is of type: " + a[2].TypeName());
    }
    if (!AsInt32(a[2], &y)) {
      return Error(28728, "Third argument to $slice can't be represented as a 32-bit integer: " + a[2].ToString());
    }
    if (y <= 0) return Error(28729, "Third argument to $slice must be positive: " + a[2].ToString());
    start = x >= 0 ? std::min(x, n) : std::max<int64_t>(0, n + x);
    count = y;
  }
  std::vector<Value> out;
  for (int64_t i = start; i < n && i < start + count; ++i) out.push_back(e[i]);
  return Value::Array(out);
}

StatusWith<Value> Range(std::vector<Value>& a) {
  int64_t start, end, step = 1;
  if (!a[0].numeric()) return Error(34443, "$range requires a numeric starting value, found value of type: " + a[0].TypeName());
  if (!AsInt32(a[0], &start)) return Error(34444, "$range requires a starting value that can be represented as a 32-bit integer, found value: " + a[0].ToString());
  if (!a[1].numeric()) return Error(34445, "$range requires a numeric ending value, found value of type: " + a[1].TypeName());
  if (!AsInt32(a[1], &end)) return Error(34446, "$range requires an ending value that can be represented as a 32-bit integer, found value: " + a[1].ToString());
  if (a.size() == 3) {
    if (!a[2].numeric()) return Error(34447, "$range requires a numeric step value, found value of type:" + a[2].TypeName());
    if (!AsInt32(a[2], &step)) return Error(34448, "$range requires a step value that can be represented as a 32-bit integer, found value: " + a[2].ToString());
    if (step == 0) return Error(34449, "$range requires a non-zero step value");
  }
  // MongoDB's internalQueryMaxRangeBytes (64 MiB): the array is refused
  // before it is built when its estimated size (a vector plus 16 bytes a
  // value, MongoDB's accounting) reaches the limit; int32 bounds alone would
  // allow 2^32 elements, enough to exhaust the server's memory.
  constexpr int64_t kMaxRangeBytes = 64 * 1024 * 1024;
  const int64_t steps = (end - start) / step;
  const int64_t mem_needed = 24 + (steps >= 0 ? 1 + steps : 0) * 16;
  if (mem_needed >= kMaxRangeBytes) {
    return Error(static_cast<int>(ErrorCode::kExceededMemoryLimit),
                 "$range would use too much memory (" + std::to_string(mem_needed) +
                     " bytes) and cannot spill to disk. Memory limit: " +
                     std::to_string(kMaxRangeBytes) + " bytes");
  }
  std::vector<Value> out;
  for (int64_t i = start; step > 0 ? i < end : i > end; i += step) {
    out.push_back(Value::Int(static_cast<int32_t>(i)));
  }
  return Value::Array(out);
}

StatusWith<Value> IndexOfArray(std::vector<Value>& a, const bson::Collator* collator) {
  if (a[0].nullish()) return Value::Null();
  if (!a[0].is_array()) {
    return Error(40090, "$indexOfArray requires an array as a first argument, found: " + a[0].TypeName());
  }
  std::vector<Value> e = a[0].Elements();
  int64_t bounds[2] = {0, static_cast<int64_t>(e.size())};
  for (size_t i = 2; i < a.size(); ++i) {
    const char* which = i == 2 ? "starting" : "ending";
    if (!a[i].numeric() || !a[i].AsInt64Exact(&bounds[i - 2])) {
      return Error(40096, std::string("$indexOfArray requires an integral ") + which +
                              " index, found a value of type: " + a[i].TypeName() +
                              ", with value: " + a[i].ToString());
    }
    if (bounds[i - 2] < 0) {
      return Error(40097, std::string("$indexOfArray requires a nonnegative ") + which +
                              " index, found: " + a[i].ToString());
    }
  }
  int64_t end = std::min<int64_t>(bounds[1], static_cast<int64_t>(e.size()));
  for (int64_t i = bounds[0]; i < end; ++i) {
    if (Equal(e[i], a[1], collator)) return Value::IntegralLong(i);
  }
  return Value::Int(-1);
}

StatusWith<ExpressionPtr> ParseZip(const bson_iter_t* operand, ParseContext* ctx) {
  NamedArgsSpec spec{{"inputs", "useLongestLength", "defaults"},
                     {"inputs"},
                     34460,
                     "$zip only supports an object as an argument, found " +
                         TypeNameOf(bson_iter_type(operand)),
                     34464,
                     "$zip found an unknown argument: %s",
                     34465,
                     "$zip requires at least one input array"};
  // An empty `inputs` list is refused when parsed, as MongoDB does, even
  // if no document ever reaches the expression.
  bson_iter_t inputs;
  if (BSON_ITER_HOLDS_DOCUMENT(operand) && bson_iter_recurse(operand, &inputs) &&
      bson_iter_find(&inputs, "inputs") && BSON_ITER_HOLDS_ARRAY(&inputs)) {
    bson_iter_t first;
    if (bson_iter_recurse(&inputs, &first) && !bson_iter_next(&first)) {
      return Error(34465, "$zip requires at least one input array");
    }
  }
  return ParseNamed(operand, ctx, spec, [](NamedValues& a) -> StatusWith<Value> {
    const Value& inputs = a["inputs"];
    bool longest = a["useLongestLength"].Truthy();
    const Value& defaults = a["defaults"];
    if (!defaults.missing() && !longest) {
      return Error(34466, "cannot specify defaults unless useLongestLength is true");
    }
    if (!inputs.is_array()) {
      return Error(34461, "inputs must be an array of expressions, found " + inputs.TypeName());
    }
    std::vector<std::vector<Value>> arrays;
    for (const Value& in : inputs.Elements()) {
      if (in.nullish()) return Value::Null();
      if (!in.is_array()) {
        return Error(34468, "$zip found a non-array expression in input: " + in.ToString());
      }
      arrays.push_back(in.Elements());
    }
    std::vector<Value> defs;
    if (!defaults.missing()) {
      if (!defaults.is_array()) {
        return Error(34462, "defaults must be an array of expressions, found " + defaults.TypeName());
      }
      defs = defaults.Elements();
      if (defs.size() != arrays.size()) {
        return Error(34467, "$zip requires that 'defaults' and 'inputs' have the same length");
      }
    }
    size_t len = arrays.empty() ? 0 : (longest ? 0 : SIZE_MAX);
    for (const auto& arr : arrays) len = longest ? std::max(len, arr.size()) : std::min(len, arr.size());
    std::vector<Value> out;
    for (size_t i = 0; i < len; ++i) {
      std::vector<Value> row;
      for (size_t j = 0; j < arrays.size(); ++j) {
        if (i < arrays[j].size()) row.push_back(arrays[j][i]);
        else row.push_back(defs.empty() ? Value::Null() : defs[j]);
      }
      out.push_back(Value::Array(row));
    }
    return Value::Array(out);
  });
}

StatusWith<ExpressionPtr> ParseSortArray(const bson_iter_t* operand, ParseContext* ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(operand)) {
    return Error(2942500, "$sortArray requires an object as an argument, found: " +
                              TypeNameOf(bson_iter_type(operand)));
  }
  bson_iter_t it;
  bson_iter_recurse(operand, &it);
  ExpressionPtr input;
  std::optional<Value> sort_by;
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "input") {
      ASSIGN_OR_RETURN(input, ParseOperand(&it, ctx));
    } else if (key == "sortBy") {
      sort_by = Value(&it);
    } else {
      return Error(2942501, "$sortArray found an unknown argument: " + key);
    }
  }
  if (!input) return Error(2942502, "$sortArray requires 'input' to be specified");
  if (!sort_by) return Error(2942503, "$sortArray requires 'sortBy' to be specified");
  std::shared_ptr<query::SortSpec> spec;
  int direction = 1;
  if (sort_by->is_document()) {
    bson::BsonDoc d = sort_by->ToDoc();
    ASSIGN_OR_RETURN(query::SortSpec parsed, query::SortSpec::Parse(d.get(), ctx->context().collator));
    if (parsed.empty()) return Error(2942505, "$sortArray sortBy must not be empty");
    spec = std::make_shared<query::SortSpec>(std::move(parsed));
  } else {
    int64_t d;
    if (!sort_by->numeric() || !sort_by->AsInt64Exact(&d) || (d != 1 && d != -1)) {
      return Error(2942505, "$sortArray sortBy must be either 1, -1, or an object, found: " +
                                sort_by->ToString());
    }
    direction = static_cast<int>(d);
  }
  std::vector<ExpressionPtr> args;
  args.push_back(std::move(input));
  const bson::Collator* collator = ctx->context().collator;
  return MakeNary(std::move(args), [spec, direction, collator](std::vector<Value>& a) -> StatusWith<Value> {
    if (a[0].nullish()) return Value::Null();
    if (!a[0].is_array()) {
      return Error(2942504, "The input argument to $sortArray must be an array, but was of type: " +
                                a[0].TypeName());
    }
    std::vector<Value> e = a[0].Elements();
    if (spec) {
      std::vector<std::pair<std::string, size_t>> keys;
      bson::BsonDoc empty;
      for (size_t i = 0; i < e.size(); ++i) {
        if (e[i].is_document()) {
          bson_t view = e[i].View();
          keys.emplace_back(spec->KeyFor(&view), i);
        } else {
          keys.emplace_back(spec->KeyFor(empty.get()), i);
        }
      }
      std::stable_sort(keys.begin(), keys.end(),
                       [](const auto& x, const auto& y) { return x.first < y.first; });
      std::vector<Value> out;
      for (const auto& k : keys) out.push_back(e[k.second]);
      return Value::Array(out);
    }
    std::stable_sort(e.begin(), e.end(), [direction, collator](const Value& x, const Value& y) {
      return direction > 0 ? Compare(x, y, collator) < 0 : Compare(x, y, collator) > 0;
    });
    return Value::Array(e);
  });
}

}  // namespace

StatusWith<ExpressionPtr> ParseArrayOp(std::string_view name, const bson_iter_t* operand,
                                       ParseContext* ctx) {
  std::string op(name);
  if (name == "$arrayElemAt") {
    return ParseNary(name, operand, ctx, 2, 2, [op](std::vector<Value>& a) -> StatusWith<Value> {
      if (a[0].nullish() || a[1].nullish()) return Value::Null();
      if (!a[0].is_array()) {
        return Error(28689, "$arrayElemAt's first argument must be an array, but is " + a[0].TypeName());
      }
      if (!a[1].numeric()) {
        return Error(28690, "$arrayElemAt's second argument must be a numeric value, but is " + a[1].TypeName());
      }
      int64_t idx;
      if (!AsInt32(a[1], &idx)) {
        return Error(28691, "$arrayElemAt's second argument must be representable as a 32-bit integer: " + a[1].ToString());
      }
      return ElemAt(a[0], idx);
    });
  }
  if (name == "$first" || name == "$last") {
    bool first = name == "$first";
    return ParseNary(name, operand, ctx, 1, 1, [op, first](std::vector<Value>& a) -> StatusWith<Value> {
      if (a[0].nullish()) return Value::Null();
      if (!a[0].is_array()) {
        return Error(28689, op + "'s argument must be an array, but is " + a[0].TypeName());
      }
      return ElemAt(a[0], first ? 0 : -1);
    });
  }
  if (name == "$concatArrays") {
    return ParseNary(name, operand, ctx, 0, -1, [](std::vector<Value>& a) -> StatusWith<Value> {
      std::vector<Value> out;
      for (const Value& v : a) {
        if (v.nullish()) return Value::Null();
        if (!v.is_array()) return Error(28664, "$concatArrays only supports arrays, not " + v.TypeName());
        for (Value& e : v.Elements()) out.push_back(std::move(e));
      }
      return Value::Array(out);
    });
  }
  if (name == "$size") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& a) -> StatusWith<Value> {
      if (!a[0].is_array()) {
        return Error(17124, "The argument to $size must be an array. Type of argument: " + a[0].TypeName());
      }
      bson_t view = a[0].View();
      return Value::IntegralLong(static_cast<int64_t>(bson_count_keys(&view)));
    });
  }
  if (name == "$slice") return ParseNary(name, operand, ctx, 2, 3, Slice);
  if (name == "$in") {
    const bson::Collator* collator = ctx->context().collator;
    return ParseNary(name, operand, ctx, 2, 2, [collator](std::vector<Value>& a) -> StatusWith<Value> {
      if (!a[1].is_array()) {
        return Error(40081, "$in requires an array as a second argument, found: " + a[1].TypeName());
      }
      for (const Value& e : a[1].Elements()) {
        if (Equal(e, a[0], collator)) return Value::Bool(true);
      }
      return Value::Bool(false);
    });
  }
  if (name == "$indexOfArray") {
    return ParseNary(name, operand, ctx, 2, 4, [collator = ctx->context().collator](std::vector<Value>& a) {
      return IndexOfArray(a, collator);
    });
  }
  if (name == "$isArray") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& a) -> StatusWith<Value> {
      return Value::Bool(a[0].is_array());
    });
  }
  if (name == "$reverseArray") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& a) -> StatusWith<Value> {
      if (a[0].nullish()) return Value::Null();
      if (!a[0].is_array()) {
        return Error(34435, "The argument to $reverseArray must be an array, but was of type: " + a[0].TypeName());
      }
      std::vector<Value> e = a[0].Elements();
      std::reverse(e.begin(), e.end());
      return Value::Array(e);
    });
  }
  if (name == "$range") return ParseNary(name, operand, ctx, 2, 3, Range);
  if (name == "$arrayToObject") {
    return ParseNary(name, operand, ctx, 1, 1, [](std::vector<Value>& a) { return ArrayToObject(a[0]); });
  }
  if (name == "$sortArray") return ParseSortArray(operand, ctx);
  return ParseZip(operand, ctx);  // $zip
}

}  // namespace tigerdoc::agg
