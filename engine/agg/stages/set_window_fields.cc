// $setWindowFields: {partitionBy?: <expression>, sortBy?: {...}, output:
// {<path>: {<window function>, window?: {...}}, ...}}.
//
//   input ─► Sorter (partition value, sortBy key; spills with allowDiskUse,
//            292 without, as MongoDB's own $sort ahead of this stage)
//         ─► one partition at a time in a DocumentBuffer (in memory, or in a
//            spill file with allowDiskUse once past the memory limit;
//            5643011 without) ─► each output field's function computes a
//            column ─► each document read back with its fields set
//
// Output comes partition by partition (partitions in BSON order of their
// value, a missing value counting as null), each in sortBy order. What
// stays in memory for a partition besides its documents -- the sortBy
// value and key of each row and the computed columns -- is MongoDB's
// window function memory: past the limit it fails with 5414201, with or
// without allowDiskUse (it does not spill).

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/agg/window/window_function.h"
#include "engine/bson/aligned_iter.h"
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
      : input_(std::move(input)), ctx_(ctx), spec_(std::move(spec)), vars_(ctx),
        docs_(DocumentBuffer::Options{ctx->max_memory_bytes, ctx->allow_disk_use, ctx->temp_dir,
                                      Error(5643011, "Exceeded max memory. Set 'allowDiskUse: true' to spill to disk")}) {
    partition_.docs = &docs_;
  }

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (!sorter_) RETURN_IF_ERROR(SortInput());
    while (pos_ >= partition_.size()) {
      if (!pending_ && sorter_->AtEnd()) return std::optional<bson::BsonDoc>();
      RETURN_IF_ERROR(NextPartition());
    }
    const size_t i = pos_++;
    ASSIGN_OR_RETURN(Value doc, partition_.Doc(i));
    for (size_t k = 0; k < spec_->outputs.size(); ++k) {
      if (columns_[k][i].missing()) continue;
      doc = SetNestedField(doc, spec_->outputs[k].path, 0, columns_[k][i]);
    }
    return std::optional<bson::BsonDoc>(doc.ToDoc());
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

  // Reads the next partition from the sorter and computes its columns.
  Status NextPartition() {
    RETURN_IF_ERROR(docs_.Clear());
    partition_.sort_values.clear();
    partition_.sort_keys.clear();
    columns_.clear();
    pos_ = 0;
    window_bytes_ = 0;
    std::string part_key;
    if (pending_) {
      part_key = pending_key_;
      RETURN_IF_ERROR(AddRow(std::move(*pending_)));
      pending_.reset();
    }
    while (!sorter_->AtEnd()) {
      bson::BsonDoc doc;
      ASSIGN_OR_RETURN(bool more, sorter_->Next(&doc));
      if (!more) break;
      ASSIGN_OR_RETURN(Value part, PartitionValue(Value::Document(doc)));
      std::string key = part.Key();
      if (partition_.size() > 0 && key != part_key) {
        pending_ = std::move(doc);
        pending_key_ = std::move(key);
        break;
      }
      part_key = std::move(key);
      RETURN_IF_ERROR(AddRow(std::move(doc)));
    }
    RETURN_IF_ERROR(docs_.Finish());
    if (partition_.size() == 0) return Status::OK();
    for (const OutputField& f : spec_->outputs) {
      if (const WindowBounds* range = f.fn->range_bounds()) {
        for (const Value& v : partition_.sort_values) RETURN_IF_ERROR(range->CheckRangeValue(v));
      }
      ASSIGN_OR_RETURN(std::vector<Value> column, f.fn->Compute(partition_, &vars_));
      for (const Value& v : column) window_bytes_ += ValueBytes(v);
      RETURN_IF_ERROR(CheckWindowMemory());
      columns_.push_back(std::move(column));
    }
    return Status::OK();
  }

  Status AddRow(bson::BsonDoc doc) {
    if (spec_->sort_by) {
      const auto& first = spec_->sort_by->fields()[0];
      Value s = GetNestedField(Value::Document(doc), first.path.parts());
      partition_.sort_values.push_back(s.missing() ? Value::Null() : s);
      partition_.sort_keys.push_back(spec_->sort_by->KeyFor(doc.get()));
      partition_.descending = first.direction == keystring::Direction::kDescending;
    } else {
      partition_.sort_values.push_back(Value::Null());
      partition_.sort_keys.emplace_back();
    }
    window_bytes_ += ValueBytes(partition_.sort_values.back()) + partition_.sort_keys.back().size() + 32;
    RETURN_IF_ERROR(CheckWindowMemory());
    return docs_.Add(std::move(doc));
  }

  Status CheckWindowMemory() const {
    if (window_bytes_ <= ctx_->max_memory_bytes) return Status::OK();
    return Error(5414201, "Exceeded memory limit in DocumentSourceSetWindowFields, used " +
                              std::to_string(window_bytes_) + " bytes");
  }

  StagePtr input_;
  const ExpressionContext* ctx_;
  std::shared_ptr<const WindowSpec> spec_;
  Variables vars_;
  std::unique_ptr<query::Sorter> sorter_;
  std::optional<bson::BsonDoc> pending_;  // first row of the next partition
  std::string pending_key_;
  DocumentBuffer docs_;
  Partition partition_;                    // the current one (over docs_)
  std::vector<std::vector<Value>> columns_;  // [output field][row]
  size_t window_bytes_ = 0;                  // sortBy values, keys, columns
  size_t pos_ = 0;                           // next row to return
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
  std::optional<bson::AlignedIter> output_it;
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
      output_it = bson::AlignedIter{it};
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
  bson_t output = bson::SubDocumentView(&output_it->it);
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
