// $densify: {field, partitionByFields?, range: {step, unit?, bounds}}.
// Adds documents holding only the field (and the partition fields) for the
// missing values of a grid: lower + k * step (k * step units for dates).
//
//   bounds "full"       grid from the smallest value of all partitions, up
//                       to (not including) the largest, in every partition
//   bounds "partition"  grid from each partition's smallest value to its
//                       largest
//   bounds [lo, hi]     grid over [lo, hi); documents outside pass through
//
// Output is sorted by the partition fields, then the field (MongoDB sorts
// ahead of densifying); documents without the field (or null) pass through
// first in their partition. At most 500000 documents are generated
// (MongoDB's internalQueryMaxAllowedDensifyDocs): 5897900 past that.

#include <deque>

#include "engine/agg/numeric.h"
#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/agg/time_unit.h"
#include "engine/query/sorter.h"

namespace tigerdoc::agg {
namespace {

constexpr int64_t kMaxGenerated = 500000;

struct DensifySpec {
  std::vector<std::string> field;
  std::vector<std::vector<std::string>> partition_fields;
  std::string field_name;
  Value step;
  std::optional<TimeUnit> unit;
  enum Bounds { kFull, kPartition, kExplicit } bounds = kFull;
  Value lo, hi;  // kExplicit
};

class DensifyStage : public Stage {
 public:
  DensifyStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const DensifySpec> spec)
      : input_(std::move(input)), ctx_(ctx), spec_(std::move(spec)) {}

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (!sorter_) RETURN_IF_ERROR(SortInput());
    while (out_.empty()) {
      if (sorter_->AtEnd()) {
        if (!finished_) {
          finished_ = true;
          RETURN_IF_ERROR(FinishPartition());
          continue;
        }
        return std::optional<bson::BsonDoc>();
      }
      bson::BsonDoc doc;
      ASSIGN_OR_RETURN(bool more, sorter_->Next(&doc));
      if (!more) continue;
      RETURN_IF_ERROR(Process(std::move(doc)));
    }
    bson::BsonDoc doc = std::move(out_.front());
    out_.pop_front();
    return std::optional<bson::BsonDoc>(std::move(doc));
  }

 private:
  Value PartitionOf(const Value& doc) const {
    std::vector<Value> parts;
    for (const auto& p : spec_->partition_fields) {
      Value v = GetNestedField(doc, p);
      parts.push_back(v.missing() ? Value::Null() : v);
    }
    return Value::Array(parts);
  }

  Status CheckType(const Value& v) const {
    if (spec_->unit) {
      if (v.type() != BSON_TYPE_DATE_TIME) {
        return Error(6053600, "Densify field type must be a date when a 'unit' is specified, found " + v.TypeName());
      }
    } else if (!v.numeric()) {
      return Error(5733201, "Densify field type must be numeric when no 'unit' is specified, found " + v.TypeName());
    }
    return Status::OK();
  }

  Status SortInput() {
    sorter_ = std::make_unique<query::Sorter>(ctx_->BlockingSorterOptions());
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) break;
      Value d = Value::Document(*doc);
      Value v = GetNestedField(d, spec_->field);
      if (!v.nullish()) {
        RETURN_IF_ERROR(CheckType(v));
        if (!have_range_ || Compare(v, global_min_) < 0) global_min_ = v;
        if (!have_range_ || Compare(v, global_max_) > 0) global_max_ = v;
        have_range_ = true;
      }
      std::string key = PartitionOf(d).Key() + (v.nullish() ? Value::Null() : v).Key();
      RETURN_IF_ERROR(sorter_->Add(std::move(key), std::move(*doc)));
    }
    return sorter_->Done();
  }

  // Grid value number k from `anchor`.
  Value GridValue(const Value& anchor, int64_t k) const {
    if (k == 0) return anchor;  // the bound itself, type and all
    if (spec_->unit) {
      int64_t step;
      spec_->step.AsInt64Exact(&step);
      return Value::Date(AddTimeUnits(anchor.date(), *spec_->unit, step * k));
    }
    return NumAdd(anchor, NumMultiply(spec_->step, Value::IntegralLong(k)));
  }

  Status Emit(const Value& value) {
    if (++generated_ > kMaxGenerated) {
      return Error(5897900, "Generated " + std::to_string(generated_) +
                                " documents in $densify, which is over the limit of " +
                                std::to_string(kMaxGenerated) +
                                ". Increase the 'internalQueryMaxAllowedDensifyDocs' parameter to allow more generated documents");
    }
    Value doc = SetNestedField(Value::Missing(), spec_->field, 0, value);
    for (size_t i = 0; i < spec_->partition_fields.size(); ++i) {
      Value pv = GetNestedField(partition_doc_, spec_->partition_fields[i]);
      if (!pv.missing()) doc = SetNestedField(doc, spec_->partition_fields[i], 0, pv);
    }
    out_.push_back(doc.ToDoc());
    return Status::OK();
  }

  // Emits the grid values below `limit` (and below an explicit upper bound).
  Status FillBelow(const Value& limit) {
    if (!anchor_) return Status::OK();
    while (true) {
      Value g = GridValue(*anchor_, k_);
      if (Compare(g, limit) >= 0) return Status::OK();
      if (spec_->bounds == DensifySpec::kExplicit && Compare(g, spec_->hi) >= 0) return Status::OK();
      RETURN_IF_ERROR(Emit(g));
      ++k_;
    }
  }

  Status StartPartition(const Value& doc, const Value& partition_key_value) {
    partition_doc_ = doc;
    partition_ = partition_key_value.Key();
    k_ = 0;
    anchor_.reset();
    if (spec_->bounds == DensifySpec::kFull && have_range_) anchor_ = global_min_;
    if (spec_->bounds == DensifySpec::kExplicit) anchor_ = spec_->lo;
    started_ = true;
    return Status::OK();
  }

  Status FinishPartition() {
    if (!started_) return Status::OK();
    if (spec_->bounds == DensifySpec::kFull && have_range_) return FillBelow(global_max_);
    if (spec_->bounds == DensifySpec::kExplicit) return FillBelow(spec_->hi);
    return Status::OK();
  }

  Status Process(bson::BsonDoc doc) {
    Value d = Value::Document(doc);
    Value part = PartitionOf(d);
    if (!started_ || part.Key() != partition_) {
      RETURN_IF_ERROR(FinishPartition());
      RETURN_IF_ERROR(StartPartition(d, part));
    }
    Value v = GetNestedField(d, spec_->field);
    if (!v.nullish()) {
      if (!anchor_) anchor_ = v;  // "partition": the partition's smallest value
      RETURN_IF_ERROR(FillBelow(v));
      // Skip the grid value the document itself holds (FillBelow left the
      // grid at or above v, unless it stopped at an explicit upper bound,
      // past which nothing is generated anyway).
      bool past_hi = spec_->bounds == DensifySpec::kExplicit && Compare(v, spec_->hi) >= 0;
      if (!past_hi && Compare(GridValue(*anchor_, k_), v) <= 0) ++k_;
    }
    out_.push_back(std::move(doc));
    return Status::OK();
  }

  StagePtr input_;
  const ExpressionContext* ctx_;
  std::shared_ptr<const DensifySpec> spec_;
  std::unique_ptr<query::Sorter> sorter_;
  bool have_range_ = false;
  Value global_min_, global_max_;
  bool started_ = false, finished_ = false;
  std::string partition_;
  Value partition_doc_;
  std::optional<Value> anchor_;
  int64_t k_ = 0;
  int64_t generated_ = 0;
  std::deque<bson::BsonDoc> out_;
};

}  // namespace

StatusWith<StageSpecPtr> ParseDensifyStage(const bson_iter_t* it, const ExpressionContext&) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) {
    return Error(static_cast<int>(ErrorCode::kFailedToParse), "The $densify stage specification must be an object, found " +
                                                                  TypeNameOf(bson_iter_type(it)));
  }
  bson_t obj = bson::SubDocumentView(it);
  auto spec = std::make_shared<DensifySpec>();
  bool have_field = false, have_range = false;
  Value bounds;
  bool have_step = false;
  bson_iter_t f;
  bson_iter_init(&f, &obj);
  while (bson_iter_next(&f)) {
    std::string key = bson_iter_key(&f);
    Value v(&f);
    if (key == "field") {
      if (!v.is_string()) {
        return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                     "BSON field '$densify.field' is the wrong type '" + v.TypeName() + "', expected type 'string'");
      }
      RETURN_IF_ERROR(ValidateFieldPath(v.str()));
      spec->field_name = std::string(v.str());
      spec->field = SplitPath(v.str());
      have_field = true;
    } else if (key == "partitionByFields") {
      if (!v.is_array()) {
        return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                     "BSON field '$densify.partitionByFields' is the wrong type '" + v.TypeName() + "', expected type 'array'");
      }
      for (const Value& p : v.Elements()) {
        if (!p.is_string()) {
          return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                       "BSON field '$densify.partitionByFields' elements must be strings, found " + p.TypeName());
        }
        RETURN_IF_ERROR(ValidateFieldPath(p.str()));
        spec->partition_fields.push_back(SplitPath(p.str()));
      }
    } else if (key == "range") {
      if (!v.is_document()) {
        return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                     "BSON field '$densify.range' is the wrong type '" + v.TypeName() + "', expected type 'object'");
      }
      have_range = true;
      for (auto& [rk, rv] : v.Fields()) {
        if (rk == "step") {
          spec->step = rv;
          have_step = true;
        } else if (rk == "unit") {
          std::optional<TimeUnit> u = rv.is_string() ? ParseTimeUnit(rv.str()) : std::nullopt;
          if (!u) return Error(static_cast<int>(ErrorCode::kFailedToParse), "unknown time unit value: " + rv.ToString());
          spec->unit = u;
        } else if (rk == "bounds") {
          bounds = rv;
        } else {
          return Error(40415, "BSON field '$densify.range." + rk + "' is an unknown field.");
        }
      }
    } else {
      return Error(40415, "BSON field '$densify." + key + "' is an unknown field.");
    }
  }
  if (!have_field) return Error(40414, "BSON field '$densify.field' is missing but a required field");
  if (!have_range) return Error(40414, "BSON field '$densify.range' is missing but a required field");
  if (!have_step) return Error(40414, "BSON field '$densify.range.step' is missing but a required field");
  if (bounds.missing()) return Error(40414, "BSON field '$densify.range.bounds' is missing but a required field");
  // MongoDB's RangeStatement::parse: the step, the unit, then the bounds.
  if (!spec->step.numeric() || Compare(spec->step, Value::Int(0)) <= 0) {
    return Error(5733401, "The step parameter in a range statement must be a strictly positive numeric value");
  }
  int64_t whole;
  if (spec->unit && !spec->step.AsInt64Exact(&whole)) {
    return Error(6586400, "The step parameter in a range statement must be a whole number when densifying a date range");
  }
  if (bounds.is_array()) {
    std::vector<Value> e = bounds.Elements();
    if (e.size() != 2) return Error(5733403, "A bounding array in a range statement must have exactly two elements");
    if (Compare(e[0], e[1]) > 0) {
      return Error(5733402, "A bounding array must be an ascending array of either two dates or two numbers");
    }
    if (e[0].numeric()) {
      if (spec->unit) return Error(5733409, "Numeric bounds may not have unit parameter");
      if (!e[1].numeric()) return Error(5733406, "A bounding array must contain either both dates or both numeric types");
    } else if (e[0].type() == BSON_TYPE_DATE_TIME) {
      if (e[1].type() != BSON_TYPE_DATE_TIME) {
        return Error(5733405, "A bounding array must contain either both dates or both numeric types");
      }
      if (!spec->unit) return Error(5733410, "A bounding array of dates must specify a unit");
    } else {
      return Error(5946800, "Explicit bounds must be numeric or dates");
    }
    spec->bounds = DensifySpec::kExplicit;
    spec->lo = e[0];
    spec->hi = e[1];
  } else if (bounds.is_string()) {
    if (bounds.str() == "full") {
      spec->bounds = DensifySpec::kFull;
    } else if (bounds.str() == "partition") {
      spec->bounds = DensifySpec::kPartition;
    } else {
      return Error(5946802, "Bounds string must either be 'full' or 'partition'");
    }
  } else {
    return Error(5733404, "The bounds in a range statement must be the string 'full', 'partition', or an "
                          "ascending array of two numbers or two dates");
  }
  if (spec->bounds == DensifySpec::kPartition && spec->partition_fields.empty()) {
    return Error(5733408, "One cannot specify the bounds as 'partition' without specifying a non-empty array of "
                          "partitionByFields. You may have meant to specify 'full' bounds.");
  }
  for (const auto& p : spec->partition_fields) {
    std::string dotted;
    for (size_t i = 0; i < p.size(); ++i) dotted += (i ? "." : "") + p[i];
    if (dotted == spec->field_name) {
      return Error(8993000, "$densify: 'field' cannot be one of the 'partitionByFields'");
    }
  }
  std::shared_ptr<const DensifySpec> shared = spec;
  return MakeSpec("$densify", [shared](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return StagePtr(std::make_unique<DensifyStage>(std::move(input), c, shared));
  });
}

}  // namespace tigerdoc::agg
