// $group: {_id: <expression>, <field>: {<accumulator>: <expression>}, ...}.
// Groups come out in order of first appearance.

#include "engine/agg/stages/group.h"

#include <unordered_map>

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
    if (pos_ >= groups_.size()) return std::optional<bson::BsonDoc>();
    Group& g = groups_[pos_++];
    std::vector<std::pair<std::string, Value>> fields;
    fields.emplace_back("_id", g.key);
    for (size_t i = 0; i < g.accs.size(); ++i) {
      ASSIGN_OR_RETURN(Value v, g.accs[i]->Finalize());
      fields.emplace_back(spec_->fields[i].field, v.missing() ? Value::Null() : std::move(v));
    }
    return std::optional<bson::BsonDoc>(MakeDocument(fields).ToDoc());
  }

 private:
  struct Group {
    Value key;
    std::vector<std::unique_ptr<Accumulator>> accs;
  };

  Status Consume() {
    size_t memory = 0;
    while (true) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, input_->Next());
      if (!doc) break;
      vars_.SetRoot(Value::Document(*doc));
      ASSIGN_OR_RETURN(Value key, spec_->id->Evaluate(&vars_));
      if (key.missing()) key = Value::Null();
      if (spec_->key_transform) {
        ASSIGN_OR_RETURN(key, spec_->key_transform(key));
      }
      std::string k = key.Key();
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
      if (memory > ctx_->max_memory_bytes && !ctx_->allow_disk_use) {
        return Error(292,
                     "Exceeded memory limit for $group, but didn't allow external sort. Pass "
                     "allowDiskUse:true to opt in.");
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
};

}  // namespace

StagePtr MakeGroupStage(StagePtr input, const ExpressionContext* ctx, std::shared_ptr<const GroupSpec> spec) {
  return std::make_unique<GroupStage>(std::move(input), ctx, std::move(spec));
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
  bson_t doc = SubDocument(spec);
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
