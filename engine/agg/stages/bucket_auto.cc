// $bucketAuto: {groupBy, buckets, output, granularity}. Sorts the inputs by
// groupBy (missing counts as null) and cuts them into `buckets` buckets of
// round(n / buckets) documents, never splitting equal values; the last
// bucket takes the rest. _id is {min, max}: max is the next bucket's min
// (the last bucket's max is its largest value). Output defaults to
// {count: {$sum: 1}}.
//
// With `granularity` (granularity.h) boundaries are preferred numbers: the
// first min is rounded down, each max rounded up (absorbing the values below
// it) and becomes the next bucket's min.
//
// The sort is the engine's Sorter: past the memory limit it spills with
// allowDiskUse and fails with 292 without.

#include <cmath>

#include "engine/agg/granularity.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/group.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/query/sorter.h"

namespace tigerdoc::agg {
namespace {

struct BucketAutoSpec {
  std::shared_ptr<Expression> group_by;
  std::vector<AccumulationStatement> fields;
  int64_t buckets = 0;
  std::shared_ptr<const GranularityRounder> granularity;  // may be null
};

class BucketAutoStage : public Stage {
 public:
  BucketAutoStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const BucketAutoSpec> spec)
      : input_(std::move(input)), ctx_(ctx), spec_(std::move(spec)), vars_(ctx) {}

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (!sorter_) RETURN_IF_ERROR(SortInput());
    if (!pending_ && sorter_->AtEnd()) return std::optional<bson::BsonDoc>();
    return NextBucket();
  }

 private:
  struct Row {
    Value key;
    Value doc;
  };

  Status SortInput() {
    sorter_ = std::make_unique<query::Sorter>(ctx_->BlockingSorterOptions());
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) break;
      Value d = Value::Document(*doc);
      vars_.SetRoot(d);
      ASSIGN_OR_RETURN(Value key, spec_->group_by->Evaluate(&vars_));
      if (spec_->granularity) {
        if (!key.numeric()) {
          return Error(40258, "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: " +
                                  key.TypeName());
        }
        if (std::isnan(key.AsDouble())) {
          return Error(40259, "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a NaN");
        }
        if (key.AsDouble() < 0) {
          return Error(40260, "$bucketAuto can specify a 'granularity' with non-negative numbers only, but found a negative number");
        }
      }
      if (key.missing()) key = Value::Null();
      // The sorter orders by key; the row keeps the key and the document.
      bson::BsonDoc row = MakeDocument({{"k", key}, {"d", d}}).ToDoc();
      RETURN_IF_ERROR(sorter_->Add(key.Key(ctx_->collator), std::move(row)));
      ++count_;
    }
    RETURN_IF_ERROR(sorter_->Done());
    approx_ = static_cast<int64_t>(std::llround(static_cast<double>(count_) / static_cast<double>(spec_->buckets)));
    if (approx_ < 1) approx_ = 1;
    return Status::OK();
  }

  StatusWith<std::optional<Row>> Pull() {
    if (sorter_->AtEnd()) return std::optional<Row>();
    bson::BsonDoc doc;
    ASSIGN_OR_RETURN(bool more, sorter_->Next(&doc));
    if (!more) return std::optional<Row>();
    Value row = Value::Document(doc);
    return std::optional<Row>(Row{GetNestedField(row, {"k"}), GetNestedField(row, {"d"})});
  }

  Status Add(const Row& row, std::vector<std::unique_ptr<Accumulator>>& accs, Value* max) {
    *max = row.key;
    vars_.SetRoot(row.doc);
    for (size_t k = 0; k < accs.size(); ++k) {
      ASSIGN_OR_RETURN(Value arg, spec_->fields[k].argument->Evaluate(&vars_));
      RETURN_IF_ERROR(accs[k]->Process(arg));
    }
    return Status::OK();
  }

  StatusWith<std::optional<bson::BsonDoc>> NextBucket() {
    ++bucket_number_;
    Row first;
    if (pending_) {
      first = std::move(*pending_);
      pending_.reset();
    } else {
      ASSIGN_OR_RETURN(std::optional<Row> r, Pull());
      first = std::move(*r);
    }
    std::vector<std::unique_ptr<Accumulator>> accs;
    for (const auto& f : spec_->fields) accs.push_back(f.factory());
    Value min = first.key, max;
    if (spec_->granularity) {
      if (previous_max_) {
        min = *previous_max_;
      } else {
        ASSIGN_OR_RETURN(min, spec_->granularity->RoundDown(first.key));
      }
    }
    RETURN_IF_ERROR(Add(first, accs, &max));
    const bool last = bucket_number_ == spec_->buckets;
    for (int64_t i = 1; last || i < approx_; ++i) {
      ASSIGN_OR_RETURN(std::optional<Row> r, Pull());
      if (!r) break;
      RETURN_IF_ERROR(Add(*r, accs, &max));
    }
    // Boundaries: absorb what belongs to this bucket, then fix its max.
    ASSIGN_OR_RETURN(std::optional<Row> next, Pull());
    if (spec_->granularity) {
      ASSIGN_OR_RETURN(Value boundary, spec_->granularity->RoundUp(max));
      while (next && Compare(boundary, next->key) > 0) {
        RETURN_IF_ERROR(Add(*next, accs, &max));
        ASSIGN_OR_RETURN(next, Pull());
      }
      if (boundary.AsDouble() == 0.0 && next) {
        ASSIGN_OR_RETURN(max, spec_->granularity->RoundDown(next->key));
      } else {
        max = boundary;
      }
    } else {
      while (next && Compare(max, next->key, ctx_->collator) == 0) {
        RETURN_IF_ERROR(Add(*next, accs, &max));
        ASSIGN_OR_RETURN(next, Pull());
      }
      if (next) max = next->key;
    }
    previous_max_ = max;
    pending_ = std::move(next);
    std::vector<std::pair<std::string, Value>> out;
    out.emplace_back("_id", MakeDocument({{"min", min}, {"max", max}}));
    for (size_t k = 0; k < accs.size(); ++k) {
      ASSIGN_OR_RETURN(Value v, accs[k]->Finalize());
      out.emplace_back(spec_->fields[k].field, v.missing() ? Value::Null() : std::move(v));
    }
    return std::optional<bson::BsonDoc>(MakeDocument(out).ToDoc());
  }

  StagePtr input_;
  const ExpressionContext* ctx_;
  std::shared_ptr<const BucketAutoSpec> spec_;
  Variables vars_;
  std::unique_ptr<query::Sorter> sorter_;
  int64_t count_ = 0;
  int64_t approx_ = 1;
  int64_t bucket_number_ = 0;
  std::optional<Row> pending_;       // first row of the next bucket
  std::optional<Value> previous_max_;
};

}  // namespace

StatusWith<StageSpecPtr> ParseBucketAutoStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(40240, "The argument to $bucketAuto must be an object, but found type: " +
                            TypeNameOf(bson_iter_type(spec)));
  }
  bson_t doc = bson::SubDocumentView(spec);
  ParseContext pctx(&ctx);
  auto parsed = std::make_shared<BucketAutoSpec>();
  bool have_output = false;
  bson_iter_t it;
  bson_iter_init(&it, &doc);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "groupBy") {
      if (!IsPathOrExpressionObject(&it)) {
        return Error(40239, "The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: " +
                                Value(&it).ToString());
      }
      ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, &pctx));
      parsed->group_by = std::move(e);
    } else if (key == "buckets") {
      Value v(&it);
      if (!v.numeric()) {
        return Error(40241, "The $bucketAuto 'buckets' field must be a numeric value, but found type: " + v.TypeName());
      }
      int64_t n;
      if (!v.AsInt64Exact(&n) || n > INT32_MAX || n < INT32_MIN) {
        return Error(40242, "The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found " +
                                v.ToString());
      }
      if (n <= 0) {
        return Error(40243, "The $bucketAuto 'buckets' field must be greater than 0, but found: " + std::to_string(n));
      }
      parsed->buckets = n;
    } else if (key == "output") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Error(40244, "The $bucketAuto 'output' field must be an object, but found type: " +
                                TypeNameOf(bson_iter_type(&it)));
      }
      bson_t out = bson::SubDocumentView(&it);
      RETURN_IF_ERROR(ParseAccumulatorFields(&out, &pctx, nullptr, &parsed->fields));
      have_output = true;
    } else if (key == "granularity") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) {
        return Error(40261, "The $bucketAuto 'granularity' field must be a string, but found type: " +
                                TypeNameOf(bson_iter_type(&it)));
      }
      ASSIGN_OR_RETURN(parsed->granularity, GranularityRounder::Make(bson_iter_utf8(&it, nullptr)));
    } else {
      return Error(40245, "Unrecognized option to $bucketAuto: " + key + ".");
    }
  }
  if (!parsed->group_by || parsed->buckets == 0) {
    return Error(40246, "$bucketAuto requires 'groupBy' and 'buckets' to be specified");
  }
  if (!have_output || parsed->fields.empty()) {
    parsed->fields.push_back(CountStatement("count"));
  }
  std::shared_ptr<const BucketAutoSpec> shared = parsed;
  return MakeSpec("$bucketAuto", [shared](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return StagePtr(std::make_unique<BucketAutoStage>(std::move(input), c, shared));
  });
}

}  // namespace tigerdoc::agg
