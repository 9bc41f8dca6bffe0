// $unwind: "$path" or {path, includeArrayIndex, preserveNullAndEmptyArrays}.
// One output document per array element (the path set to the element);
// non-array values pass through; null, missing and empty arrays are dropped
// unless preserveNullAndEmptyArrays (which keeps an empty array's document
// without the field, as MongoDB).

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {
namespace {

struct UnwindSpec {
  std::vector<std::string> path;
  std::vector<std::string> index_path;  // empty: none
  bool preserve = false;
};

class UnwindStage : public Stage {
 public:
  UnwindStage(StagePtr input, std::shared_ptr<const UnwindSpec> spec)
      : input_(std::move(input)), spec_(std::move(spec)) {}
  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    while (true) {
      if (pos_ < elems_.size()) {
        Value out = SetNestedField(doc_, spec_->path, 0, elems_[pos_]);
        if (!spec_->index_path.empty()) {
          out = SetNestedField(out, spec_->index_path, 0, Value::Long(static_cast<int64_t>(pos_)));
        }
        ++pos_;
        return std::optional<bson::BsonDoc>(out.ToDoc());
      }
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> in, input_->Next());
      if (!in) return std::optional<bson::BsonDoc>();
      doc_ = Value::Document(*in);
      Value v = GetNestedField(doc_, spec_->path);
      elems_.clear();
      pos_ = 0;
      if (v.is_array()) {
        elems_ = v.Elements();
        if (!elems_.empty()) continue;
      }
      bool drop = v.nullish() || v.is_array();
      if (drop && !spec_->preserve) continue;
      Value out = doc_;
      // An empty array is preserved without its field, as MongoDB does
      // ({a: []} -> {}); null and non-array values stay.
      if (v.is_array()) out = SetNestedField(out, spec_->path, 0, Value::Missing());
      if (!spec_->index_path.empty()) out = SetNestedField(out, spec_->index_path, 0, Value::Null());
      return std::optional<bson::BsonDoc>(out.ToDoc());
    }
  }

 private:
  StagePtr input_;
  std::shared_ptr<const UnwindSpec> spec_;
  Value doc_;
  std::vector<Value> elems_;
  size_t pos_ = 0;
};

}  // namespace

StatusWith<StageSpecPtr> ParseUnwindStage(const bson_iter_t* spec, const ExpressionContext&) {
  auto u = std::make_shared<UnwindSpec>();
  std::string path;
  if (BSON_ITER_HOLDS_UTF8(spec)) {
    path = IterString(spec);
  } else if (BSON_ITER_HOLDS_DOCUMENT(spec)) {
    bson_t doc = bson::SubDocumentView(spec);
    bson_iter_t it;
    bson_iter_init(&it, &doc);
    bool have_path = false;
    while (bson_iter_next(&it)) {
      std::string key = bson_iter_key(&it);
      if (key == "path") {
        if (!BSON_ITER_HOLDS_UTF8(&it)) {
          return Error(28808, "expected a string as the path for $unwind stage, got " +
                                  TypeNameOf(bson_iter_type(&it)));
        }
        path = IterString(&it);
        have_path = true;
      } else if (key == "preserveNullAndEmptyArrays") {
        if (!BSON_ITER_HOLDS_BOOL(&it)) {
          return Error(28809, "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got " +
                                  TypeNameOf(bson_iter_type(&it)));
        }
        u->preserve = bson_iter_bool(&it);
      } else if (key == "includeArrayIndex") {
        if (!BSON_ITER_HOLDS_UTF8(&it) || bson_iter_utf8(&it, nullptr)[0] == '\0') {
          return Error(28810, "expected a non-empty string for the includeArrayIndex  option to $unwind stage, got " +
                                  TypeNameOf(bson_iter_type(&it)));
        }
        std::string idx = IterString(&it);
        if (idx[0] == '$') {
          return Error(28822, "includeArrayIndex option to $unwind stage should not be prefixed with a '$': " + idx);
        }
        RETURN_IF_ERROR(ValidateFieldPath(idx));
        u->index_path = SplitPath(idx);
      } else {
        return Error(28811, "unrecognized option to $unwind stage: " + key);
      }
    }
    if (!have_path) return Error(28812, "No path specified to $unwind stage");
  } else {
    return Error(15981, "expected either a string or an object as specification for $unwind stage, got " +
                            TypeNameOf(bson_iter_type(spec)));
  }
  if (path.empty()) return Error(40352, "FieldPath cannot be constructed with empty string");
  if (path[0] != '$') {
    return Error(28818, "path option to $unwind stage should be prefixed with a '$': " + path);
  }
  RETURN_IF_ERROR(ValidateFieldPath(path.substr(1)));
  u->path = SplitPath(path.substr(1));
  return MakeSpec("$unwind", [u](StagePtr input, const ExpressionContext*) -> StatusWith<StagePtr> {
    return StagePtr(std::make_unique<UnwindStage>(std::move(input), u));
  });
}

}  // namespace tigerdoc::agg
