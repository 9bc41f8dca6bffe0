#include "engine/update/modifier_nodes.h"

#include <chrono>

#include "engine/bson/compare.h"
#include "engine/query/matcher/element.h"

namespace tigerdoc::update {
namespace {

ModifyOutcome Noop() { return ModifyOutcome{}; }

ModifyOutcome SetTo(MutableValue v) {
  ModifyOutcome out;
  out.action = ModifyOutcome::Action::kSet;
  out.value = std::move(v);
  return out;
}

// Sets unless the field already holds exactly this value.
ModifyOutcome SetUnlessIdentical(const MutableValue* existing, MutableValue v) {
  if (existing != nullptr && existing->BinaryEquals(v)) return Noop();
  return SetTo(std::move(v));
}

int CompareMutable(const MutableValue& a, const MutableValue& b) {
  bson::BsonDoc da, db;
  a.AppendTo(da.mutable_get(), "");
  b.AppendTo(db.mutable_get(), "");
  bson_iter_t ia, ib;
  bson_iter_init(&ia, da.get());
  bson_iter_next(&ia);
  bson_iter_init(&ib, db.get());
  bson_iter_next(&ib);
  return bson::CompareValues(&ia, &ib);
}

}  // namespace

StatusWith<ModifyOutcome> SetNode::Apply(const std::string&, const std::string&,
                                         const MutableValue* existing,
                                         const ApplyContext& ctx) const {
  if (only_on_insert_ && !ctx.is_upsert_insert) return Noop();
  return SetUnlessIdentical(existing, value_);
}

StatusWith<ModifyOutcome> UnsetNode::Apply(const std::string&, const std::string&,
                                           const MutableValue* existing,
                                           const ApplyContext&) const {
  if (existing == nullptr) return Noop();
  ModifyOutcome out;
  out.action = ModifyOutcome::Action::kRemove;
  return out;
}

StatusWith<ModifyOutcome> ArithmeticNode::Apply(const std::string&, const std::string& field_name,
                                                const MutableValue* existing,
                                                const ApplyContext& ctx) const {
  const char* op_name = op_ == ArithmeticOp::kAdd ? "$inc" : "$mul";
  if (existing == nullptr) {
    // $inc creates the field with the increment; $mul with a zero of the
    // multiplier's type.
    return SetTo(MutableValue(op_ == ArithmeticOp::kAdd ? operand_ : ZeroLike(operand_.get())));
  }
  if (existing->kind() != MutableValue::Kind::kScalar || !IsNumeric(existing->type())) {
    return Status(ErrorCode::kTypeMismatch,
                  std::string("Cannot apply ") + op_name +
                      " to a value of non-numeric type. " + ctx.id_string + " has the field '" +
                      field_name + "' of non-numeric type " +
                      query::BsonTypeName(existing->type()));
  }
  auto result = ApplyArithmetic(op_, existing->scalar(), operand_.get());
  if (!result) {
    return Status(ErrorCode::kBadValue,
                  std::string("Failed to apply ") + op_name +
                      " operations to current value (" + SafeNumString(existing->scalar()) +
                      ") for document " + ctx.id_string);
  }
  return SetUnlessIdentical(existing, MutableValue(std::move(*result)));
}

StatusWith<ModifyOutcome> CompareNode::Apply(const std::string&, const std::string&,
                                             const MutableValue* existing,
                                             const ApplyContext&) const {
  if (existing == nullptr) return SetTo(value_);
  const int c = CompareMutable(value_, *existing);
  const bool replace = mode_ == Mode::kMin ? c < 0 : c > 0;
  return replace ? SetTo(value_) : Noop();
}

StatusWith<ModifyOutcome> CurrentDateNode::Apply(const std::string&, const std::string&,
                                                 const MutableValue*, const ApplyContext&) const {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  bson_value_t v;
  if (as_timestamp_) {
    // MongoDB takes the next cluster time; tigerdoc has no oplog, so the
    // wall-clock second with increment 1 stands in.
    v.value_type = BSON_TYPE_TIMESTAMP;
    v.value.v_timestamp.timestamp =
        static_cast<uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(now).count());
    v.value.v_timestamp.increment = 1;
  } else {
    v.value_type = BSON_TYPE_DATE_TIME;
    v.value.v_datetime = std::chrono::duration_cast<std::chrono::milliseconds>(now).count();
  }
  return SetTo(MutableValue(query::OwnedValue(&v)));
}

StatusWith<ModifyOutcome> RenameDestinationNode::Apply(const std::string&, const std::string&,
                                                       const MutableValue* existing,
                                                       const ApplyContext& ctx) const {
  auto it = ctx.rename_sources.find(source_);
  if (it == ctx.rename_sources.end()) return Noop();
  return SetUnlessIdentical(existing, it->second);
}

}  // namespace tigerdoc::update
