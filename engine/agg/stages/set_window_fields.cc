// $setWindowFields: {partitionBy?: <expression>, sortBy?: {...}, output:
// {<path>: {<window function>, window?: {...}}, ...}}.
//
//   input ─► Sorter (partition value, sortBy key; spills with allowDiskUse,
//            292 without, as MongoDB's own $sort ahead of this stage)
//         ─► one partition at a time in memory ─► each output field's
//            function computes a column ─► documents with the fields set
//
// Output comes partition by partition (partitions in BSON order of their
// value, a missing value counting as null), each in sortBy order. A
// partition larger than the memory limit fails with 5414201 unless
// allowDiskUse (then it is held in memory: partitions do not spill).

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/agg/window/window_function.h"
#include "engine/query/sort.h"
#include "engine/query/sorter.h"

namespace tigerdoc::agg {
namespace {

struct OutputField {
  std::vector<std::string> path;
  std::shared_ptr<WindowFunction> fn;
};

struct WindowSpec {
  std::shared_ptr<Expression> partition_by;  // may be null
  std::optional<query::SortSpec> sort_by;
  std::vector<OutputField> outputs;
};

class SetWindowFieldsStage : public Stage {
 public:
  SetWindowFieldsStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const WindowSpec> spec)
      : input_(std::move(input)), ctx_(ctx), spec_(std::move(spec)), vars_(ctx) {}

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (!sorter_) RETURN_IF_ERROR(SortInput());
    while (pos_ >= ready_.size()) {
      if (!pending_ && sorter_->AtEnd()) return std::optional<bson::BsonDoc>();
      RETURN_IF_ERROR(NextPartition());
    }
    return std::optional<bson::BsonDoc>(std::move(ready_[pos_++]));
  }

 private:
  StatusWith<Value> PartitionValue(const Value& doc) {
    if (!spec_->partition_by) return Value::Null();
    vars_.SetRoot(doc);
    ASSIGN_OR_RETURN(Value v, spec_->partition_by->Evaluate(&vars_));
    return v.missing() ? Value::Null() : v;
  }

  Status SortInput() {
    sorter_ = std::make_unique<query::Sorter>(ctx_->BlockingSorterOptions());
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) break;
      ASSIGN_OR_RETURN(Value part, PartitionValue(Value::Document(*doc)));
      std::string key = part.Key();
      if (spec_->sort_by) key += spec_->sort_by->KeyFor(doc->get());
      RETURN_IF_ERROR(sorter_->Add(std::move(key), std::move(*doc)));
    }
    return sorter_->Done();
  }

  // Reads the next partition from the sorter and computes its output.
  Status NextPartition() {
    ready_.clear();
    pos_ = 0;
    Partition p;
    std::string part_key;
    size_t memory = 0;
    if (pending_) {
      part_key = pending_key_;
      RETURN_IF_ERROR(AddRow(&p, std::move(*pending_), &memory));
      pending_.reset();
    }
    while (!sorter_->AtEnd()) {
      bson::BsonDoc doc;
      ASSIGN_OR_RETURN(bool more, sorter_->Next(&doc));
      if (!more) break;
      ASSIGN_OR_RETURN(Value part, PartitionValue(Value::Document(doc)));
      std::string key = part.Key();
      if (!p.docs.empty() && key != part_key) {
        pending_ = std::move(doc);
        pending_key_ = std::move(key);
        break;
      }
      part_key = std::move(key);
      RETURN_IF_ERROR(AddRow(&p, std::move(doc), &memory));
    }
    if (p.docs.empty()) return Status::OK();
    std::vector<std::vector<Value>> columns;
    for (const OutputField& f : spec_->outputs) {
      if (const WindowBounds* range = f.fn->range_bounds()) {
        for (const Value& v : p.sort_values) RETURN_IF_ERROR(range->CheckRangeValue(v));
      }
      ASSIGN_OR_RETURN(std::vector<Value> column, f.fn->Compute(p, &vars_));
      columns.push_back(std::move(column));
    }
    for (size_t i = 0; i < p.docs.size(); ++i) {
      Value doc = std::move(p.docs[i]);
      for (size_t k = 0; k < spec_->outputs.size(); ++k) {
        if (columns[k][i].missing()) continue;
        doc = SetNestedField(doc, spec_->outputs[k].path, 0, columns[k][i]);
      }
      ready_.push_back(doc.ToDoc());
    }
    return Status::OK();
  }

  Status AddRow(Partition* p, bson::BsonDoc doc, size_t* memory) {
    *memory += doc.size() * 2 + 64;
    if (*memory > ctx_->max_memory_bytes && !ctx_->allow_disk_use) {
      return Error(5414201, "Exceeded memory limit in DocumentSourceSetWindowFields, used " +
                                std::to_string(*memory) + " bytes");
    }
    Value v = Value::Document(doc);
    if (spec_->sort_by) {
      const auto& first = spec_->sort_by->fields()[0];
      Value s = GetNestedField(v, first.path.parts());
      p->sort_values.push_back(s.missing() ? Value::Null() : s);
      p->sort_keys.push_back(spec_->sort_by->KeyFor(doc.get()));
      p->descending = first.direction == keystring::Direction::kDescending;
    } else {
      p->sort_values.push_back(Value::Null());
      p->sort_keys.emplace_back();
    }
    p->docs.push_back(std::move(v));
    return Status::OK();
  }

  StagePtr input_;
  const ExpressionContext* ctx_;
  std::shared_ptr<const WindowSpec> spec_;
  Variables vars_;
  std::unique_ptr<query::Sorter> sorter_;
  std::optional<bson::BsonDoc> pending_;  // first row of the next partition
  std::string pending_key_;
  std::vector<bson::BsonDoc> ready_;
  size_t pos_ = 0;
};

Status StageError(const std::string& message) {
  return Error(static_cast<int>(ErrorCode::kFailedToParse), message);
}

}  // namespace

StatusWith<StageSpecPtr> ParseSetWindowFieldsStage(const bson_iter_t* spec_it, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec_it)) {
    return StageError("the $setWindowFields stage specification must be an object, found " +
                      TypeNameOf(bson_iter_type(spec_it)));
  }
  bson_t obj = bson::SubDocumentView(spec_it);
  auto spec = std::make_shared<WindowSpec>();
  ParseContext pctx(&ctx);
  std::optional<bson_iter_t> output_it;
  bson_iter_t it;
  bson_iter_init(&it, &obj);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key == "partitionBy") {
      ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, &pctx));
      spec->partition_by = std::move(e);
    } else if (key == "sortBy") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                     "BSON field '$setWindowFields.sortBy' is the wrong type '" +
                         TypeNameOf(bson_iter_type(&it)) + "', expected type 'object'");
      }
      bson_t sort = bson::SubDocumentView(&it);
      ASSIGN_OR_RETURN(query::SortSpec parsed, query::SortSpec::Parse(&sort));
      if (!parsed.empty()) spec->sort_by = std::move(parsed);
    } else if (key == "output") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
        return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                     "BSON field '$setWindowFields.output' is the wrong type '" +
                         TypeNameOf(bson_iter_type(&it)) + "', expected type 'object'");
      }
      output_it = it;
    } else {
      return Error(40415, "BSON field '$setWindowFields." + key + "' is an unknown field.");
    }
  }
  if (!output_it) return Error(40414, "BSON field '$setWindowFields.output' is missing but a required field");
  SortByShape shape;
  if (spec->sort_by) {
    shape.fields = spec->sort_by->fields().size();
    shape.descending = spec->sort_by->fields()[0].direction == keystring::Direction::kDescending;
  }
  bson_t output = bson::SubDocumentView(&*output_it);
  bson_iter_init(&it, &output);
  while (bson_iter_next(&it)) {
    std::string field = bson_iter_key(&it);
    RETURN_IF_ERROR(ValidateFieldPath(field));
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return StageError("The field '" + field + "' must be an object");
    }
    bson_t fn_spec = bson::SubDocumentView(&it);
    ASSIGN_OR_RETURN(std::unique_ptr<WindowFunction> fn, ParseWindowFunction(&fn_spec, shape, &pctx));
    spec->outputs.push_back({SplitPath(field), std::shared_ptr<WindowFunction>(std::move(fn))});
  }
  std::shared_ptr<const WindowSpec> shared = spec;
  return MakeSpec("$setWindowFields", [shared](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return StagePtr(std::make_unique<SetWindowFieldsStage>(std::move(input), c, shared));
  });
}

}  // namespace tigerdoc::agg
