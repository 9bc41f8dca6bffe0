// $fill: {partitionBy? | partitionByFields?, sortBy?, output: {<field>:
// {value: <expression>} | {method: "locf" | "linear"}}}.
//
// As in MongoDB, this is $setWindowFields (for the `method` outputs:
// {$locf: "$field"} / {$linearFill: "$field"}, partitioned and sorted as
// given) followed by an $addFields of {$ifNull: ["$field", <value>]} for the
// `value` outputs. Errors: 6050204 both partition forms, 6050203 not exactly
// one of value/method, 6050202 an unknown method, and those of
// $setWindowFields ($linearFill needs a single sortBy field).

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {
namespace {

struct ValueFill {
  std::vector<std::string> path;
  std::shared_ptr<Expression> value;
};

}  // namespace

StatusWith<StageSpecPtr> ParseFillStage(const bson_iter_t* it, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) {
    return Error(static_cast<int>(ErrorCode::kFailedToParse),
                 "The $fill stage specification must be an object, found " + TypeNameOf(bson_iter_type(it)));
  }
  bson_t obj = bson::SubDocumentView(it);
  bson::BsonDoc window;  // the $setWindowFields specification
  bson::BsonDoc window_output;
  std::vector<ValueFill> value_fills;
  bool have_partition_by = false, have_partition_fields = false, have_output = false;
  ParseContext pctx(&ctx);
  bson_iter_t f;
  bson_iter_init(&f, &obj);
  while (bson_iter_next(&f)) {
    std::string key = bson_iter_key(&f);
    if (key == "partitionBy") {
      have_partition_by = true;
      bson_append_iter(window.mutable_get(), "partitionBy", -1, &f);
    } else if (key == "partitionByFields") {
      have_partition_fields = true;
      Value v(&f);
      if (!v.is_array()) {
        return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                     "BSON field '$fill.partitionByFields' is the wrong type '" + v.TypeName() + "', expected type 'array'");
      }
      // {"0": "$a", "1": "$b.c"}: one partition per combination of values.
      std::vector<std::pair<std::string, Value>> fields;
      for (const Value& p : v.Elements()) {
        if (!p.is_string()) {
          return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                       "BSON field '$fill.partitionByFields' elements must be strings, found " + p.TypeName());
        }
        RETURN_IF_ERROR(ValidateFieldPath(p.str()));
        fields.emplace_back(std::to_string(fields.size()), Value::String("$" + std::string(p.str())));
      }
      MakeDocument(fields).AppendTo(window.mutable_get(), "partitionBy");
    } else if (key == "sortBy") {
      bson_append_iter(window.mutable_get(), "sortBy", -1, &f);
    } else if (key == "output") {
      Value out(&f);
      if (!out.is_document()) {
        return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                     "BSON field '$fill.output' is the wrong type '" + out.TypeName() + "', expected type 'object'");
      }
      have_output = true;
      if (out.Fields().empty()) {
        return Error(6050203, "The output field in '$fill' must contain an object with at least one element");
      }
      for (auto& [field, fs] : out.Fields()) {
        RETURN_IF_ERROR(ValidateFieldPath(field));
        if (!fs.is_document()) {
          return Error(6050200, "Each fill output specification must be an object with exactly one field");
        }
        for (const auto& [name, ignored] : fs.Fields()) {
          if (name != "value" && name != "method") {
            return Error(40415, "BSON field '$fill." + name + "' is an unknown field.");
          }
        }
        Value value = GetNestedField(fs, {"value"}), method = GetNestedField(fs, {"method"});
        if (!method.missing() && !value.missing()) {
          return Error(6050201,
                       "Each fill output specification must have exactly one of 'method' or 'value' fields, not both");
        }
        if (!method.missing() && !method.is_string()) {
          return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                       "BSON field '$fill.method' is the wrong type '" + method.TypeName() + "', expected type 'string'");
        }
        if (method.missing() && value.missing()) continue;  // MongoDB fills nothing for {}
        if (!value.missing()) {
          ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(value, &pctx));
          value_fills.push_back({SplitPath(field), std::shared_ptr<Expression>(std::move(e))});
          continue;
        }
        if (method.str() != "locf" && method.str() != "linear") {
          return Error(6050202, "Method must be either locf or linear");
        }
        std::string fn = method.str() == "locf" ? "$locf" : "$linearFill";
        MakeDocument({{fn, Value::String("$" + field)}}).AppendTo(window_output.mutable_get(), field);
      }
    } else {
      return Error(40415, "BSON field '$fill." + key + "' is an unknown field.");
    }
  }
  if (!have_output) return Error(40414, "BSON field '$fill.output' is missing but a required field");
  if (have_partition_by && have_partition_fields) {
    // (sic: MongoDB's message misses a quote)
    return Error(6050204, "Maximum one of 'partitionBy' and 'partitionByFields can be specified in '$fill'");
  }
  StageSpecPtr window_spec;
  if (!bson_empty(window_output.get())) {
    BSON_APPEND_DOCUMENT(window.mutable_get(), "output", window_output.get());
    bson::BsonDoc wrapper;
    BSON_APPEND_DOCUMENT(wrapper.mutable_get(), "$setWindowFields", window.get());
    bson_iter_t w;
    bson_iter_init(&w, wrapper.get());
    bson_iter_next(&w);
    ASSIGN_OR_RETURN(window_spec, ParseSetWindowFieldsStage(&w, ctx));
  }
  std::shared_ptr<const StageSpec> shared_window(std::move(window_spec));
  auto fills = std::make_shared<const std::vector<ValueFill>>(std::move(value_fills));
  return MakeSpec("$fill", [shared_window, fills](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    StagePtr stage = std::move(input);
    if (shared_window) {
      ASSIGN_OR_RETURN(stage, shared_window->Build(std::move(stage), c));
    }
    if (fills->empty()) return stage;
    return MakeMapStage(std::move(stage), c, [fills](bson::BsonDoc doc, Variables* vars) -> StatusWith<std::optional<bson::BsonDoc>> {
      Value d = Value::Document(doc);
      vars->SetRoot(d);
      Value out = d;
      for (const ValueFill& f : *fills) {
        if (!GetNestedField(d, f.path).nullish()) continue;
        ASSIGN_OR_RETURN(Value v, f.value->Evaluate(vars));
        out = SetNestedField(out, f.path, 0, v);
      }
      return std::optional<bson::BsonDoc>(out.ToDoc());
    });
  });
}

}  // namespace tigerdoc::agg
