// $group: {_id: <expression>, <field>: {<accumulator>: <expression>}, ...}.
// Groups come out in order of first appearance (when nothing spilled).
//
// Spilling (allowDiskUse): once the groups' state passes the memory limit,
// the rest of the input goes to a Sorter keyed by group key (which spills
// sorted runs to ExpressionContext::temp_dir). The output then walks the
// sorted groups, continuing the in-memory accumulators of keys seen before
// the switch (so $first/$push keep input order) and building the others one
// group at a time, and finally emits the in-memory groups not met there.

#include "engine/agg/stages/group.h"

#include <unordered_map>

#include "engine/query/sorter.h"

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"

namespace tigerdoc::agg {
namespace {

class GroupStage : public Stage {
 public:
  GroupStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const GroupSpec> spec)
      : input_(std::move(input)), ctx_(ctx), spec_(std::move(spec)), vars_(ctx) {}

  StatusWith<std::optional<bson::BsonDoc>> Next() override {
    if (!done_) {
      RETURN_IF_ERROR(Consume());
      done_ = true;
    }
    if (spilled_) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> merged, NextSpilledGroup());
      if (merged) return merged;
    }
    while (pos_ < groups_.size() && groups_[pos_].emitted) ++pos_;
    if (pos_ >= groups_.size()) return std::optional<bson::BsonDoc>();
    Group& g = groups_[pos_++];
    return Output(g.key, g.accs);
  }

 private:
  struct Group {
    Value key;
    std::vector<std::unique_ptr<Accumulator>> accs;
    bool emitted = false;
  };

  StatusWith<std::optional<bson::BsonDoc>> Output(const Value& key,
                                                  std::vector<std::unique_ptr<Accumulator>>& accs) {
    std::vector<std::pair<std::string, Value>> fields;
    fields.emplace_back("_id", key);
    for (size_t i = 0; i < accs.size(); ++i) {
      ASSIGN_OR_RETURN(Value v, accs[i]->Finalize());
      fields.emplace_back(spec_->fields[i].field, v.missing() ? Value::Null() : std::move(v));
    }
    return std::optional<bson::BsonDoc>(MakeDocument(fields).ToDoc());
  }

  Status Accumulate(std::vector<std::unique_ptr<Accumulator>>& accs) {
    for (size_t i = 0; i < accs.size(); ++i) {
      ASSIGN_OR_RETURN(Value arg, spec_->fields[i].argument->Evaluate(&vars_));
      RETURN_IF_ERROR(accs[i]->Process(arg));
    }
    return Status::OK();
  }

  // The group key of the input document bound in vars_.
  StatusWith<Value> KeyOfCurrent() {
    ASSIGN_OR_RETURN(Value key, spec_->id->Evaluate(&vars_));
    if (key.missing()) key = Value::Null();
    if (spec_->key_transform) {
      ASSIGN_OR_RETURN(key, spec_->key_transform(key));
    }
    return key;
  }

  // Once over the limit with allowDiskUse: the rest of the input, sorted by
  // group key, each row {k: key, d: document}.
  Status SpillRest() {
    query::SorterOptions options = ctx_->BlockingSorterOptions();
    // The groups already hold the whole budget: the rest goes to disk in
    // runs of an eighth of it, so the stage stays near its limit.
    options.max_memory_bytes = std::max<int64_t>(4096, static_cast<int64_t>(ctx_->max_memory_bytes / 8));
    options.allow_disk_use = true;
    sorter_ = std::make_unique<query::Sorter>(options);
    spilled_ = true;
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) break;
      Value d = Value::Document(*doc);
      vars_.SetRoot(d);
      ASSIGN_OR_RETURN(Value key, KeyOfCurrent());
      RETURN_IF_ERROR(sorter_->Add(key.Key(ctx_->collator), MakeDocument({{"k", key}, {"d", d}}).ToDoc()));
    }
    return sorter_->Done();
  }

  // The next group of the sorted spill, merged with its in-memory part.
  StatusWith<std::optional<bson::BsonDoc>> NextSpilledGroup() {
    if (!pending_ && sorter_->AtEnd()) return std::optional<bson::BsonDoc>();
    if (!pending_) {
      bson::BsonDoc row;
      ASSIGN_OR_RETURN(bool more, sorter_->Next(&row));
      if (!more) return std::optional<bson::BsonDoc>();
      pending_ = Value::Document(row);
    }
    Value key = GetNestedField(*pending_, {"k"});
    std::string k = key.Key(ctx_->collator);
    std::vector<std::unique_ptr<Accumulator>> fresh;
    std::vector<std::unique_ptr<Accumulator>>* accs = &fresh;
    auto it = index_.find(k);
    if (it != index_.end()) {
      groups_[it->second].emitted = true;
      accs = &groups_[it->second].accs;
    } else {
      for (const auto& f : spec_->fields) fresh.push_back(f.factory());
    }
    while (pending_ && GetNestedField(*pending_, {"k"}).Key(ctx_->collator) == k) {
      vars_.SetRoot(GetNestedField(*pending_, {"d"}));
      RETURN_IF_ERROR(Accumulate(*accs));
      pending_.reset();
      if (sorter_->AtEnd()) break;
      bson::BsonDoc row;
      ASSIGN_OR_RETURN(bool more, sorter_->Next(&row));
      if (more) pending_ = Value::Document(row);
    }
    return Output(key, *accs);
  }

  Status Consume() {
    size_t memory = 0;
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) break;
      vars_.SetRoot(Value::Document(*doc));
      ASSIGN_OR_RETURN(Value key, KeyOfCurrent());
      std::string k = key.Key(ctx_->collator);
      auto it = index_.find(k);
      size_t gi;
      if (it == index_.end()) {
        gi = groups_.size();
        index_.emplace(k, gi);
        Group g;
        g.key = std::move(key);
        for (const auto& f : spec_->fields) g.accs.push_back(f.factory());
        groups_.push_back(std::move(g));
        memory += k.size() * 2 + 64;
      } else {
        gi = it->second;
      }
      Group& g = groups_[gi];
      for (size_t i = 0; i < g.accs.size(); ++i) {
        ASSIGN_OR_RETURN(Value arg, spec_->fields[i].argument->Evaluate(&vars_));
        size_t before = g.accs[i]->MemoryUsage();
        RETURN_IF_ERROR(g.accs[i]->Process(arg));
        memory += g.accs[i]->MemoryUsage() - std::min(before, g.accs[i]->MemoryUsage());
      }
      if (memory > ctx_->max_memory_bytes) {
        if (!ctx_->allow_disk_use) {
          return Error(292,
                       "Exceeded memory limit for $group, but didn't allow external sort. Pass "
                       "allowDiskUse:true to opt in.");
        }
        return SpillRest();
      }
    }
    return Status::OK();
  }

  StagePtr input_;
  const ExpressionContext* ctx_;
  std::shared_ptr<const GroupSpec> spec_;
  Variables vars_;
  bool done_ = false;
  std::vector<Group> groups_;
  std::unordered_map<std::string, size_t> index_;
  size_t pos_ = 0;
  bool spilled_ = false;
  std::unique_ptr<query::Sorter> sorter_;
  std::optional<Value> pending_;  // next sorted row, not yet accumulated
};

}  // namespace

StagePtr MakeGroupStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const GroupSpec> spec) {
  return std::make_unique<GroupStage>(std::move(input), ctx, std::move(spec));
}

bool IsPathOrExpressionObject(const bson_iter_t* it) {
  return BSON_ITER_HOLDS_DOCUMENT(it) ||
         (BSON_ITER_HOLDS_UTF8(it) && bson_iter_utf8(it, nullptr)[0] == '$');
}

Status ParseAccumulatorFields(const bson_t* spec, ParseContext* ctx, const char* skip_field,
                              std::vector<AccumulationStatement>* out) {
  bson_iter_t it;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    if (skip_field != nullptr && std::string_view(bson_iter_key(&it)) == skip_field) continue;
    ASSIGN_OR_RETURN(AccumulationStatement st, ParseAccumulationStatement(&it, ctx));
    out->push_back(std::move(st));
  }
  return Status::OK();
}

StatusWith<StageSpecPtr> ParseGroupStage(const bson_iter_t* spec, const ExpressionContext& ctx) {
  if (!BSON_ITER_HOLDS_DOCUMENT(spec)) {
    return Error(15947, "a group's fields must be specified in an object");
  }
  bson_t doc = bson::SubDocumentView(spec);
  auto group = std::make_shared<GroupSpec>();
  ParseContext pctx(&ctx);
  bson_iter_t it;
  if (!bson_iter_init_find(&it, &doc, "_id")) {
    return Error(15955, "a group specification must include an _id");
  }
  ASSIGN_OR_RETURN(group->id, ParseOperand(&it, &pctx));
  RETURN_IF_ERROR(ParseAccumulatorFields(&doc, &pctx, "_id", &group->fields));
  return MakeSpec("$group", [group](StagePtr input, const ExpressionContext* c) -> StatusWith<StagePtr> {
    return MakeGroupStage(std::move(input), c, group);
  });
}

}  // namespace tigerdoc::agg
