#pragma once
// The modifier (leaf) nodes of the update tree, one class per operator
// family. Their argument checks and messages are MongoDB's
// (src/mongo/db/update/*_node.cpp). Contracts as update_node.h.

#include <bson/bson.h>

#include <string>
#include <vector>

#include "engine/query/owned_value.h"
#include "engine/update/arithmetic.h"
#include "engine/update/update_node.h"

namespace tigerdoc::update {

// $set, and $setOnInsert (only_on_insert): write the value; no-op when the
// field already holds a binary-identical value.
class SetNode : public ModifierNode {
 public:
  SetNode(MutableValue value, bool only_on_insert)
      : value_(std::move(value)), only_on_insert_(only_on_insert) {}
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;
  // $setOnInsert outside an upsert insert does nothing, wherever it points.
  MissingPathPolicy OnMissingPath(const ApplyContext& ctx) const override {
    return only_on_insert_ && !ctx.is_upsert_insert ? MissingPathPolicy::kIgnore
                                                    : MissingPathPolicy::kCreate;
  }

 private:
  MutableValue value_;
  bool only_on_insert_;
};

// $unset (and the source half of $rename): remove the field; in an array
// the element becomes null instead, as in MongoDB.
class UnsetNode : public ModifierNode {
 public:
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;
  MissingPathPolicy OnMissingPath(const ApplyContext&) const override {
    return MissingPathPolicy::kIgnore;
  }
};

// $inc and $mul.
class ArithmeticNode : public ModifierNode {
 public:
  // REQUIRES: `operand` is numeric (the parser reports TypeMismatch).
  ArithmeticNode(ArithmeticOp op, query::OwnedValue operand) : op_(op), operand_(std::move(operand)) {}
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;

 private:
  ArithmeticOp op_;
  query::OwnedValue operand_;
};

// $min and $max: BSON comparison order across types.
class CompareNode : public ModifierNode {
 public:
  enum class Mode { kMin, kMax };
  CompareNode(Mode mode, MutableValue value) : mode_(mode), value_(std::move(value)) {}
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;

 private:
  Mode mode_;
  MutableValue value_;
};

// $currentDate: the current time as a date or a timestamp.
class CurrentDateNode : public ModifierNode {
 public:
  explicit CurrentDateNode(bool as_timestamp) : as_timestamp_(as_timestamp) {}
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;

 private:
  bool as_timestamp_;
};

// The destination half of $rename: writes the source's original value
// (ApplyContext::rename_sources); no-op when the source is missing.
class RenameDestinationNode : public ModifierNode {
 public:
  explicit RenameDestinationNode(std::string source) : source_(std::move(source)) {}
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;
  // Nothing is written when the source is missing.
  MissingPathPolicy OnMissingPath(const ApplyContext& ctx) const override {
    return ctx.rename_sources.count(source_) != 0 ? MissingPathPolicy::kCreate
                                                  : MissingPathPolicy::kIgnore;
  }
  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

// $bit: and / or / xor with int32 or int64 operands, applied in the
// order given, on an int32 or int64 field (a missing field starts as int32
// 0). int32 with int32 stays int32; anything with int64 is int64. Any
// other field type is BadValue 2.
class BitNode : public ModifierNode {
 public:
  enum class Op { kAnd, kOr, kXor };
  struct Operation {
    Op op;
    query::OwnedValue operand;  // int32 or int64
  };

  // REQUIRES: `operations` non-empty, operands int32/int64 (the parser
  // reports BadValue otherwise).
  explicit BitNode(std::vector<Operation> operations) : operations_(std::move(operations)) {}
  StatusWith<ModifyOutcome> Apply(const std::string& path, const std::string& field_name,
                                  const MutableValue* existing,
                                  const ApplyContext& ctx) const override;

 private:
  std::vector<Operation> operations_;
};

}  // namespace tigerdoc::update
