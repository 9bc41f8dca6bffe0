// $firstN $lastN $maxN $minN $top $bottom $topN $bottomN.
//
// Their argument is a small tuple evaluated per document:
//   [n, output, sortKey]   (sortKey only for $top/$bottom families: the
//                           keystring of the document under `sortBy`)
// n is taken from the first document of the group.

#include <algorithm>
#include <memory>

#include "engine/agg/accumulators/basic.h"
#include "engine/bson/field_path.h"
#include "engine/query/sort.h"

namespace tigerdoc::agg {
namespace {

enum class Kind { kFirstN, kLastN, kMaxN, kMinN, kTop, kBottom, kTopN, kBottomN };

Kind KindOf(std::string_view op) {
  if (op == "$firstN") return Kind::kFirstN;
  if (op == "$lastN") return Kind::kLastN;
  if (op == "$maxN") return Kind::kMaxN;
  if (op == "$minN") return Kind::kMinN;
  if (op == "$top") return Kind::kTop;
  if (op == "$bottom") return Kind::kBottom;
  if (op == "$topN") return Kind::kTopN;
  return Kind::kBottomN;
}

bool HasN(Kind k) { return k != Kind::kTop && k != Kind::kBottom; }
bool HasSort(Kind k) {
  return k == Kind::kTop || k == Kind::kBottom || k == Kind::kTopN || k == Kind::kBottomN;
}

class TupleExpression : public Expression {
 public:
  TupleExpression(ExpressionPtr n, ExpressionPtr output, std::shared_ptr<query::SortSpec> sort)
      : n_(std::move(n)), output_(std::move(output)), sort_(std::move(sort)) {}
  StatusWith<Value> Evaluate(Variables* vars) const override {
    Value n = Value::Int(1);
    if (n_) {
      ASSIGN_OR_RETURN(n, n_->Evaluate(vars));
    }
    ASSIGN_OR_RETURN(Value out, output_->Evaluate(vars));
    Value key = Value::String("");
    if (sort_) {
      const Value& cur = vars->Get(Variables::kCurrent);
      bson_t view = cur.View();
      key = Value::String(sort_->KeyFor(&view));
    }
    return Value::Array({n, out.missing() ? Value::Null() : out, key});
  }

 private:
  ExpressionPtr n_, output_;
  std::shared_ptr<query::SortSpec> sort_;
};

Status ValidateN(const Value& n, int64_t* out) {
  if (!n.numeric() || !n.AsInt64Exact(out)) {
    return Error(5787902, "Value for 'n' must be of integral type, but found " + n.ToString());
  }
  if (*out <= 0) return Error(5787908, "'n' must be greater than 0, found " + n.ToString());
  return Status::OK();
}

class NAccumulator : public Accumulator {
 public:
  NAccumulator(Kind kind, std::string op) : kind_(kind), op_(std::move(op)) {}
  Status Process(const Value& tuple) override {
    std::vector<Value> t = tuple.Elements();
    if (n_ < 0) RETURN_IF_ERROR(ValidateN(t[0], &n_));
    Value& out = t[1];
    switch (kind_) {
      case Kind::kFirstN:
        if (static_cast<int64_t>(items_.size()) < n_) Add({"", std::move(out)});
        break;
      case Kind::kLastN:
        Add({"", std::move(out)});
        if (static_cast<int64_t>(items_.size()) > n_) items_.erase(items_.begin());
        break;
      case Kind::kMaxN:
      case Kind::kMinN: {
        if (out.nullish()) break;
        bool max = kind_ == Kind::kMaxN;
        auto pos = std::find_if(items_.begin(), items_.end(), [&](const auto& it) {
          int c = Compare(out, it.second);
          return max ? c > 0 : c < 0;
        });
        items_.insert(pos, {"", std::move(out)});
        if (static_cast<int64_t>(items_.size()) > n_) items_.pop_back();
        break;
      }
      default: {
        // Keep items sorted by key; ties keep arrival order.
        std::string key(t[2].str());
        auto pos = std::upper_bound(items_.begin(), items_.end(), key,
                                    [](const std::string& k, const auto& it) { return k < it.first; });
        items_.insert(pos, {std::move(key), std::move(out)});
        bool top = kind_ == Kind::kTop || kind_ == Kind::kTopN;
        if (static_cast<int64_t>(items_.size()) > n_) {
          if (top) {
            items_.pop_back();
          } else {
            items_.erase(items_.begin());
          }
        }
        break;
      }
    }
    return Status::OK();
  }
  StatusWith<Value> Finalize() override {
    if (kind_ == Kind::kTop || kind_ == Kind::kBottom) {
      return items_.empty() ? Value::Null() : items_.front().second;
    }
    std::vector<Value> out;
    for (auto& it : items_) out.push_back(it.second);
    return Value::Array(out);
  }
  size_t MemoryUsage() const override {
    size_t n = sizeof(*this);
    for (const auto& it : items_) n += it.first.size() + ValueBytes(it.second);
    return n;
  }

 private:
  void Add(std::pair<std::string, Value> item) { items_.push_back(std::move(item)); }

  Kind kind_;
  std::string op_;
  int64_t n_ = -1;
  std::vector<std::pair<std::string, Value>> items_;
};

}  // namespace

bool IsNAccumulator(std::string_view op) {
  return op == "$firstN" || op == "$lastN" || op == "$maxN" || op == "$minN" || op == "$top" ||
         op == "$bottom" || op == "$topN" || op == "$bottomN";
}

StatusWith<AccumulationStatement> ParseNAccumulator(std::string_view op_view, const bson_iter_t* spec,
                                                    ParseContext* ctx) {
  std::string op(op_view);
  Kind kind = KindOf(op);
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(5787801, "specification must be an object; found " + op + ": " +
                              TypeNameOf(bson_iter_type(spec)));
  }
  bson_iter_t it;
  bson_iter_recurse(spec, &it);
  ExpressionPtr n, output;
  std::shared_ptr<query::SortSpec> sort;
  const char* output_name = HasSort(kind) ? "output" : "input";
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "n" && HasN(kind)) {
      ASSIGN_OR_RETURN(n, ParseOperand(&it, ctx));
    } else if (key == output_name) {
      ASSIGN_OR_RETURN(output, ParseOperand(&it, ctx));
    } else if (key == "sortBy" && HasSort(kind)) {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Error(5788604, op + " requires 'sortBy' to be an object");
      }
      bson_t sdoc;
      bson::OpenSubdocument(&it, &sdoc);
      ASSIGN_OR_RETURN(query::SortSpec parsed, query::SortSpec::Parse(&sdoc));
      sort = std::make_shared<query::SortSpec>(std::move(parsed));
    } else {
      return Error(5787901, "Unknown argument for 'n' operator: " + key);
    }
  }
  if (HasN(kind) && !n) return Error(5787906, "Missing value for 'n'");
  if (!output) return Error(5787907, std::string("Missing value for '") + output_name + "'");
  if (HasSort(kind) && !sort) return Error(5788005, "Missing value for 'sortBy'");
  AccumulationStatement st;
  st.op = op;
  st.argument = std::make_unique<TupleExpression>(std::move(n), std::move(output), sort);
  st.factory = [kind, op] { return std::make_unique<NAccumulator>(kind, op); };
  return st;
}

}  // namespace tigerdoc::agg
