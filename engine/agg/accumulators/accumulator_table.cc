#include <algorithm>
#include <iterator>

#include "engine/agg/accumulators/basic.h"
#include "engine/agg/expressions/nary.h"

namespace tigerdoc::agg {
namespace {

// THE accumulator table, alphabetical. Every name here is accepted in
// $group; IsNAccumulator names take an object of named arguments.
constexpr std::string_view kAccumulators[] = {
    "$addToSet", "$avg",  "$bottom", "$bottomN", "$count",        "$first",
    "$firstN",   "$last", "$lastN",  "$max",     "$maxN",         "$mergeObjects",
    "$min",      "$minN", "$push",   "$stdDevPop", "$stdDevSamp", "$sum",
    "$top",      "$topN",
};

bool Known(std::string_view op) {
  return std::binary_search(std::begin(kAccumulators), std::end(kAccumulators), op);
}

}  // namespace

StatusWith<AccumulationStatement> ParseAccumulationStatement(const bson_iter_t* field,
                                                             ParseContext* ctx) {
  std::string name(bson_iter_key(field), bson_iter_key_len(field));
  if (name.find('.') != std::string::npos) {
    return Error(40235, "The field name '" + name + "' cannot contain '.'");
  }
  if (!name.empty() && name[0] == '$') {
    return Error(40236, "The field name '" + name + "' cannot be an operator name");
  }
  if (!BSON_ITER_HOLDS_DOCUMENT(field)) {
    return Error(40234, "The field '" + name + "' must be an accumulator object");
  }
  bson_t sub;
  uint32_t len;
  const uint8_t* data;
  bson_iter_document(field, &len, &data);
  bson_init_static(&sub, data, len);
  if (bson_count_keys(&sub) != 1) {
    return Error(40238, "The field '" + name + "' must specify one accumulator");
  }
  bson_iter_t it;
  bson_iter_init(&it, &sub);
  bson_iter_next(&it);
  std::string op = bson_iter_key(&it);
  if (!Known(op)) return Error(15952, "unknown group operator '" + op + "'");
  if (IsNAccumulator(op)) {
    ASSIGN_OR_RETURN(AccumulationStatement st, ParseNAccumulator(op, &it, ctx));
    st.field = name;
    return st;
  }
  AccumulationStatement st;
  st.field = name;
  st.op = op;
  if (op == "$count") {
    // {$count: {}} is {$sum: 1}.
    bson_t arg;
    if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
      bson_iter_document(&it, &len, &data);
      bson_init_static(&arg, data, len);
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) || !bson_empty(&arg)) {
      return Error(40237, "$count takes no arguments, i.e. $count:{}");
    }
    st.argument = MakeConstant(Value::Int(1));
    st.factory = SimpleAccumulatorFactory("$sum");
    return st;
  }
  if (BSON_ITER_HOLDS_ARRAY(&it)) {
    // Accumulators are unary in $group; MongoDB rejects an argument list.
    return Error(40237, "The " + op + " accumulator is a unary operator");
  }
  ASSIGN_OR_RETURN(st.argument, ParseOperand(&it, ctx));
  st.factory = SimpleAccumulatorFactory(op, ctx->context().collator);
  return st;
}

// Expression forms: {$sum: [a, b]} or {$sum: "$array"} in $project etc.,
// and {$firstN: {n, input}}.
StatusWith<ExpressionPtr> ParseAccumulatorOp(std::string_view name, const bson_iter_t* operand,
                                             ParseContext* ctx) {
  std::string op(name);
  if (IsNAccumulator(op)) {
    std::string input_name = "input";
    // {n, input}: evaluate, then feed each element of input.
    NamedArgsSpec spec{{"n", "input"},
                       {"n", "input"},
                       5787801,
                       "specification must be an object; found " + op + ": " +
                           TypeNameOf(bson_iter_type(operand)),
                       5787901,
                       "Unknown argument for 'n' operator: %s",
                       5787906,
                       "Missing value for '%s'"};
    const bson::Collator* collator = ctx->context().collator;
    return ParseNamed(operand, ctx, spec, [op, collator](NamedValues& a) -> StatusWith<Value> {
      const Value& input = a["input"];
      if (!input.is_array()) return Error(5788200, "Input must be an array");
      int64_t n;
      if (!a["n"].numeric() || !a["n"].AsInt64Exact(&n)) {
        return Error(5787902, "Value for 'n' must be of integral type, but found " + a["n"].ToString());
      }
      if (n <= 0) return Error(5787908, "'n' must be greater than 0, found " + a["n"].ToString());
      std::vector<Value> e = input.Elements();
      std::vector<Value> out;
      if (op == "$firstN") {
        for (size_t i = 0; i < e.size() && static_cast<int64_t>(i) < n; ++i) out.push_back(e[i]);
      } else if (op == "$lastN") {
        size_t start = e.size() > static_cast<size_t>(n) ? e.size() - n : 0;
        for (size_t i = start; i < e.size(); ++i) out.push_back(e[i]);
      } else {
        bool max = op == "$maxN";
        std::vector<Value> vals;
        for (auto& v : e) {
          if (!v.nullish()) vals.push_back(v);
        }
        std::stable_sort(vals.begin(), vals.end(), [max, collator](const Value& x, const Value& y) {
          return max ? Compare(x, y, collator) > 0 : Compare(x, y, collator) < 0;
        });
        for (size_t i = 0; i < vals.size() && static_cast<int64_t>(i) < n; ++i) out.push_back(vals[i]);
      }
      return Value::Array(out);
    });
  }
  AccumulatorFactory factory = SimpleAccumulatorFactory(op, ctx->context().collator);
  ASSIGN_OR_RETURN(auto args, ParseArgList(operand, ctx));
  bool single = bson_iter_type(operand) != BSON_TYPE_ARRAY || args.size() == 1;
  return MakeNary(std::move(args), [factory, single](std::vector<Value>& a) -> StatusWith<Value> {
    auto acc = factory();
    if (single && a.size() == 1 && a[0].is_array()) {
      for (const Value& e : a[0].Elements()) RETURN_IF_ERROR(acc->Process(e));
    } else {
      for (const Value& v : a) RETURN_IF_ERROR(acc->Process(v));
    }
    return acc->Finalize();
  });
}

}  // namespace tigerdoc::agg
