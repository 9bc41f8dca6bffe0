// The one-value accumulators: $sum $avg $min $max $first $last $push
// $addToSet $stdDevPop $stdDevSamp $mergeObjects.

#include <cmath>
#include <set>

#include "engine/agg/accumulators/basic.h"
#include "engine/agg/numeric.h"

namespace tigerdoc::agg {
namespace {

class SumAccumulator : public Accumulator {
 public:
  explicit SumAccumulator(bool avg) : avg_(avg) {}
  Status Process(const Value& v) override {
    if (!v.numeric()) return Status::OK();
    total_ = NumAdd(total_, v);
    ++count_;
    return Status::OK();
  }
  StatusWith<Value> Finalize() override {
    if (!avg_) return total_;
    if (count_ == 0) return Value::Null();
    if (total_.type() == BSON_TYPE_DECIMAL128) {
      return NumDivide(total_, Value::Long(count_));
    }
    return Value::Double(total_.AsDouble() / static_cast<double>(count_));
  }
  size_t MemoryUsage() const override { return sizeof(*this); }

 private:
  bool avg_;
  Value total_ = Value::Int(0);
  int64_t count_ = 0;
};

class MinMaxAccumulator : public Accumulator {
 public:
  MinMaxAccumulator(bool max, const bson::Collator* collator) : max_(max), collator_(collator) {}
  Status Process(const Value& v) override {
    if (v.nullish()) return Status::OK();
    if (best_.missing() ||
        (max_ ? Compare(v, best_, collator_) > 0 : Compare(v, best_, collator_) < 0)) {
      best_ = v;
    }
    return Status::OK();
  }
  StatusWith<Value> Finalize() override { return best_.missing() ? Value::Null() : best_; }
  size_t MemoryUsage() const override { return sizeof(*this) + ValueBytes(best_); }

 private:
  bool max_;
  const bson::Collator* collator_;
  Value best_;
};

class FirstLastAccumulator : public Accumulator {
 public:
  explicit FirstLastAccumulator(bool first) : first_(first) {}
  Status Process(const Value& v) override {
    if (first_ && seen_) return Status::OK();
    seen_ = true;
    value_ = v;
    return Status::OK();
  }
  StatusWith<Value> Finalize() override { return value_.missing() ? Value::Null() : value_; }
  size_t MemoryUsage() const override { return sizeof(*this) + ValueBytes(value_); }

 private:
  bool first_;
  bool seen_ = false;
  Value value_;
};

class PushAccumulator : public Accumulator {
 public:
  PushAccumulator(bool set, const bson::Collator* collator) : set_(set), collator_(collator) {}
  Status Process(const Value& v) override {
    if (v.missing()) return Status::OK();
    if (set_ && !keys_.insert(v.Key(collator_)).second) return Status::OK();
    bytes_ += ValueBytes(v);
    values_.push_back(v);
    return Status::OK();
  }
  StatusWith<Value> Finalize() override { return Value::Array(values_); }
  size_t MemoryUsage() const override { return sizeof(*this) + bytes_ * (set_ ? 2 : 1); }

 private:
  bool set_;
  const bson::Collator* collator_;  // $addToSet: equal under it is a duplicate
  std::set<std::string> keys_;
  std::vector<Value> values_;
  size_t bytes_ = 0;
};

class StdDevAccumulator : public Accumulator {
 public:
  explicit StdDevAccumulator(bool sample) : sample_(sample) {}
  Status Process(const Value& v) override {
    if (!v.numeric()) return Status::OK();
    // Welford's online algorithm.
    double x = v.AsDouble();
    ++n_;
    double delta = x - mean_;
    mean_ += delta / static_cast<double>(n_);
    m2_ += delta * (x - mean_);
    return Status::OK();
  }
  StatusWith<Value> Finalize() override {
    if (n_ == 0 || (sample_ && n_ < 2)) return Value::Null();
    return Value::Double(std::sqrt(m2_ / static_cast<double>(sample_ ? n_ - 1 : n_)));
  }
  size_t MemoryUsage() const override { return sizeof(*this); }

 private:
  bool sample_;
  int64_t n_ = 0;
  double mean_ = 0, m2_ = 0;
};

class MergeObjectsAccumulator : public Accumulator {
 public:
  Status Process(const Value& v) override {
    if (v.nullish()) return Status::OK();
    if (!v.is_document()) {
      return Error(40400, "$mergeObjects requires object inputs, but input " + v.ToString() +
                              " is of type " + v.TypeName());
    }
    for (auto& [name, fv] : v.Fields()) {
      bool found = false;
      for (auto& f : fields_) {
        if (f.first == name) {
          f.second = fv;
          found = true;
        }
      }
      if (!found) fields_.emplace_back(name, std::move(fv));
    }
    return Status::OK();
  }
  StatusWith<Value> Finalize() override { return MakeDocument(fields_); }
  size_t MemoryUsage() const override {
    size_t n = sizeof(*this);
    for (const auto& f : fields_) n += f.first.size() + ValueBytes(f.second);
    return n;
  }

 private:
  std::vector<std::pair<std::string, Value>> fields_;
};

}  // namespace

AccumulatorFactory SimpleAccumulatorFactory(std::string_view op, const bson::Collator* collator) {
  if (op == "$sum") return [] { return std::make_unique<SumAccumulator>(false); };
  if (op == "$avg") return [] { return std::make_unique<SumAccumulator>(true); };
  if (op == "$min") return [collator] { return std::make_unique<MinMaxAccumulator>(false, collator); };
  if (op == "$max") return [collator] { return std::make_unique<MinMaxAccumulator>(true, collator); };
  if (op == "$first") return [] { return std::make_unique<FirstLastAccumulator>(true); };
  if (op == "$last") return [] { return std::make_unique<FirstLastAccumulator>(false); };
  if (op == "$push") return [] { return std::make_unique<PushAccumulator>(false, nullptr); };
  if (op == "$addToSet") return [collator] { return std::make_unique<PushAccumulator>(true, collator); };
  if (op == "$stdDevPop") return [] { return std::make_unique<StdDevAccumulator>(false); };
  if (op == "$stdDevSamp") return [] { return std::make_unique<StdDevAccumulator>(true); };
  if (op == "$mergeObjects") return [] { return std::make_unique<MergeObjectsAccumulator>(); };
  return nullptr;
}

AccumulationStatement CountStatement(std::string field) {
  AccumulationStatement count;
  count.field = std::move(field);
  count.op = "$sum";
  count.argument = MakeConstant(Value::Int(1));
  count.factory = SimpleAccumulatorFactory("$sum");
  return count;
}

}  // namespace tigerdoc::agg
