// Parsing of window functions, and the accumulator-based ones.

#include "engine/agg/window/window_function.h"

#include <deque>
#include <set>

#include "engine/agg/accumulators/accumulator.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/agg/window/window_functions_internal.h"

namespace tigerdoc::agg {
namespace {

// $sum, $avg, ... over a window: one fresh accumulator per row over the
// inputs of its window (kept in a sliding queue: window bounds only move
// forward, so each document is read and evaluated once), or one running
// accumulator when the window starts at the partition's start (its end only
// moves forward) and one result when it is the whole partition.
class AccumulatorWindow : public WindowFunction {
 public:
  AccumulatorWindow(ExpressionPtr input, AccumulatorFactory factory, WindowBounds bounds)
      : input_(std::move(input)), factory_(std::move(factory)), bounds_(std::move(bounds)) {}

  StatusWith<std::vector<Value>> Compute(const Partition& p, Variables* vars) const override {
    const size_t n = p.size();
    auto input = [&](size_t k) -> StatusWith<Value> {
      ASSIGN_OR_RETURN(Value doc, p.Doc(k));
      vars->SetRoot(std::move(doc));
      return input_->Evaluate(vars);
    };
    std::vector<Value> out(n);
    if (bounds_.unbounded_both()) {
      auto acc = factory_();
      for (size_t k = 0; k < n; ++k) {
        ASSIGN_OR_RETURN(Value v, input(k));
        RETURN_IF_ERROR(acc->Process(v));
      }
      ASSIGN_OR_RETURN(Value all, acc->Finalize());
      for (Value& o : out) o = all;
      return out;
    }
    const bool running = bounds_.lower.kind == WindowBound::kUnbounded;
    std::unique_ptr<Accumulator> acc = factory_();
    size_t fed = 0;
    std::deque<Value> window;  // inputs of rows [first, first + window.size())
    size_t first = 0;
    for (size_t i = 0; i < n; ++i) {
      size_t begin, end;
      RETURN_IF_ERROR(bounds_.Resolve(i, n, p.sort_values, p.descending, &begin, &end));
      if (running) {
        while (fed < end) {
          ASSIGN_OR_RETURN(Value v, input(fed++));
          RETURN_IF_ERROR(acc->Process(v));
        }
        ASSIGN_OR_RETURN(out[i], acc->Finalize());
        continue;
      }
      if (begin < first) {  // never for sorted rows; stays correct anyway
        window.clear();
        first = begin;
      }
      while (first < begin) {
        if (!window.empty()) window.pop_front();
        ++first;
      }
      while (first + window.size() < end) {
        ASSIGN_OR_RETURN(Value v, input(first + window.size()));
        window.push_back(std::move(v));
      }
      std::unique_ptr<Accumulator> fresh = factory_();
      for (size_t k = begin; k < end; ++k) RETURN_IF_ERROR(fresh->Process(window[k - first]));
      ASSIGN_OR_RETURN(out[i], fresh->Finalize());
    }
    return out;
  }

  const WindowBounds* range_bounds() const override { return bounds_.range ? &bounds_ : nullptr; }

 private:
  ExpressionPtr input_;
  AccumulatorFactory factory_;
  WindowBounds bounds_;
};

const std::set<std::string_view>& AccumulatorNames() {
  static const std::set<std::string_view> kNames = {"$sum",   "$avg",  "$min",      "$max",
                                                    "$count", "$first", "$last",    "$push",
                                                    "$addToSet", "$stdDevPop", "$stdDevSamp"};
  return kNames;
}

}  // namespace

Status WindowParseError(const std::string& message) {
  return Error(static_cast<int>(ErrorCode::kFailedToParse), message);
}

StatusWith<std::unique_ptr<WindowFunction>> ParseWindowFunction(const bson_t* spec,
                                                                const SortByShape& sort_by,
                                                                ParseContext* ctx) {
  std::string op;
  bson_iter_t fn_it, window_it;
  bool have_window = false;
  bson_iter_t it;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "window") {
      if (have_window) return WindowParseError("saw multiple 'window' fields in '" + op + "' expression");
      have_window = true;
      window_it = it;
    } else if (!key.empty() && key[0] == '$') {
      if (!op.empty()) return WindowParseError(op + " got unexpected argument: " + key);
      if (!IsWindowFunctionName(key)) return WindowParseError("Unrecognized window function, " + key);
      op = key;
      fn_it = it;
    } else if (op.empty()) {
      return WindowParseError("Expected a $-prefixed window function, " + key);
    } else {
      return WindowParseError(op + " got unexpected argument: " + key);
    }
  }
  if (op.empty()) return WindowParseError("Expected a $-prefixed window function");
  std::optional<WindowBounds> bounds;
  if (have_window) {
    ASSIGN_OR_RETURN(WindowBounds b, WindowBounds::Parse(&window_it, sort_by));
    bounds = std::move(b);
  }
  if (AccumulatorNames().count(op) != 0) {
    ExpressionPtr input;
    AccumulatorFactory factory;
    if (op == "$count") {
      Value arg(&fn_it);
      if (!arg.is_document() || !arg.Fields().empty()) {
        return WindowParseError("$count only accepts an empty object as input");
      }
      input = MakeConstant(Value::Int(1));
      factory = SimpleAccumulatorFactory("$sum");
    } else {
      ASSIGN_OR_RETURN(input, ParseOperand(&fn_it, ctx));
      factory = SimpleAccumulatorFactory(op, ctx->context().collator);
    }
    return std::unique_ptr<WindowFunction>(std::make_unique<AccumulatorWindow>(
        std::move(input), std::move(factory), bounds.value_or(WindowBounds())));
  }
  return ParseSequenceFunction(op, &fn_it, bounds, sort_by, ctx);
}

bool IsWindowFunctionName(std::string_view name) {
  static const std::set<std::string_view> kOthers = {
      "$rank",      "$denseRank",   "$documentNumber", "$shift", "$derivative",
      "$integral",  "$expMovingAvg", "$locf",          "$linearFill"};
  return AccumulatorNames().count(name) != 0 || kOthers.count(name) != 0;
}

}  // namespace tigerdoc::agg
