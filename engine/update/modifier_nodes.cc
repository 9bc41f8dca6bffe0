#include "engine/bson/type_name.h"
#include "engine/update/modifier_nodes.h"

#include <chrono>

#include "engine/query/matcher/element.h"

namespace tigerdoc::update {
namespace {

// Sets unless the field already holds exactly this value.
ModifyOutcome SetUnlessIdentical(const MutableValue* existing, MutableValue v) {
  if (existing != nullptr && existing->BinaryEquals(v)) return Noop();
  return SetTo(std::move(v));
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
                      bson::TypeName(existing->type()));
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
  const int c = CompareValues(value_, *existing);
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

StatusWith<ModifyOutcome> BitNode::Apply(const std::string&, const std::string& field_name,
                                          const MutableValue* existing,
                                          const ApplyContext& ctx) const {
  bool wide = false;
  int64_t value = 0;
  if (existing != nullptr) {
    const bson_type_t type = existing->type();
    if (type != BSON_TYPE_INT32 && type != BSON_TYPE_INT64) {
      // MongoDB prints the _id element with no braces here.
      return Status(ErrorCode::kBadValue,
                    "Cannot apply $bit to a value of non-integral type." +
                        (ctx.id_element.empty() ? std::string("EOO") : ctx.id_element) +
                        " has the field " + field_name + " of non-integer type " +
                        bson::TypeName(type));
    }
    wide = type == BSON_TYPE_INT64;
    value = wide ? existing->scalar()->value.v_int64 : existing->scalar()->value.v_int32;
  }
  for (const Operation& operation : operations_) {
    const bson_value_t* operand = operation.operand.get();
    const bool operand_wide = operand->value_type == BSON_TYPE_INT64;
    const int64_t rhs = operand_wide ? operand->value.v_int64 : operand->value.v_int32;
    wide = wide || operand_wide;
    switch (operation.op) {
      case Op::kAnd: value &= rhs; break;
      case Op::kOr: value |= rhs; break;
      case Op::kXor: value ^= rhs; break;
    }
    // int32 operands were sign-extended, so the low 32 bits are the int32
    // result while both sides are int32.
  }
  bson_value_t out;
  if (wide) {
    out.value_type = BSON_TYPE_INT64;
    out.value.v_int64 = value;
  } else {
    out.value_type = BSON_TYPE_INT32;
    out.value.v_int32 = static_cast<int32_t>(value);
  }
  return SetUnlessIdentical(existing, MutableValue(query::OwnedValue(&out)));
}

}  // namespace tigerdoc::update
