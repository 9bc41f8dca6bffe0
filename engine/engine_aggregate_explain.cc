// Engine::ExplainAggregate: explain of aggregate in the shape mongos prints
// for a sharded collection (each tigerdoc shard table plays a shard):
//
//   { mergeType: "mongos",
//     splitPipeline: { shardsPart: [<stages each shard runs>],
//                      mergerPart: [{$mergeCursors: {...}}, <the rest>] },
//     shards: { shard0: { stages: [ {$cursor: {queryPlanner: {..., winningPlan: <shard plan>}}},
//                                   <shardsPart stages the cursor did not absorb> ] }, ... } }
//
// The split: the leading run of per-document stages ($match, $project,
// $addFields/$set, $unset, $unwind, $replaceRoot/$replaceWith, $redact)
// then an optional $sort (with a directly following $limit, which the
// merger applies again) run on the shards; everything from the first other
// stage on runs in the merger after $mergeCursors (MongoDB would also split
// a $group into partial and final groups; here it is merged whole, which is
// what tigerdoc does). The $cursor of each shard is the find explain's plan
// of the pushed-down leading $match / $sort / $limit (engine_explain.cc).
// Stages print as the command gave them (after a view's pipeline).
// A pipeline without a collection ({aggregate: 1}, a leading $documents or
// $collStats input) prints {stages: [...]} as a single mongod does.

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/agg/pipeline.h"
#include "engine/aggregate_cursor.h"
#include "engine/command_expressions.h"
#include "engine/engine.h"

namespace tigerdoc::engine {
namespace {

std::string_view StageName(const bson_iter_t& stage) {
  bson_iter_t op;
  if (!BSON_ITER_HOLDS_DOCUMENT(&stage) || !bson_iter_recurse(&stage, &op) || !bson_iter_next(&op)) {
    return {};
  }
  return bson_iter_key(&op);
}

bool RunsPerDocument(std::string_view name) {
  static const std::set<std::string_view> kStages = {"$match",       "$project",     "$addFields",
                                                      "$set",         "$unset",       "$unwind",
                                                      "$replaceRoot", "$replaceWith", "$redact"};
  return kStages.count(name) > 0;
}

void AppendArray(bson_t* parent, const char* field, const std::vector<bson::BsonDoc>& docs) {
  bson_t array;
  bson_append_array_begin(parent, field, -1, &array);
  for (size_t i = 0; i < docs.size(); ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_DOCUMENT(&array, key.c_str(), docs[i].get());
  }
  bson_append_array_end(parent, &array);
}

bson::BsonDoc StageDoc(const bson_iter_t& stage) {
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(&stage, &len, &data);
  bson_t view;
  bson_init_static(&view, data, len);
  return bson::BsonDoc::CopyOf(&view);
}

}  // namespace

StatusWith<bson::BsonDoc> Engine::ExplainAggregate(AggregateParams params, ExplainVerbosity verbosity) {
  static_cast<void>(verbosity);  // plans only: the pipeline is not run
  std::string ns;
  RETURN_IF_ERROR(ResolveAggregateView(&params, &ns));
  ASSIGN_OR_RETURN(CommandExpressions expressions, AggregateExpressions(params));
  // Parsed as aggregate would (the same errors), never run.
  EngineResolver resolver(this, std::make_shared<SessionSlot>());
  expressions.ctx.resolver = &resolver;
  ASSIGN_OR_RETURN(agg::Pipeline pipeline, agg::Pipeline::Parse(params.pipeline.get(), expressions.ctx));

  std::vector<bson::BsonDoc> stages;
  std::vector<std::string_view> names;
  bson_iter_t it;
  bson_iter_init(&it, params.pipeline.get());
  while (bson_iter_next(&it)) {
    stages.push_back(StageDoc(it));
    names.push_back(StageName(it));
  }

  bson::BsonDoc out;
  if (params.coll.empty() || params.input) {
    AppendArray(out.mutable_get(), "stages", stages);
    return out;
  }

  // The shards part: per-document stages, then a $sort [+ $limit].
  size_t split = 0;
  while (split < stages.size() && RunsPerDocument(names[split])) ++split;
  std::optional<bson::BsonDoc> merge_sort;
  bool limit_again = false;
  if (split < stages.size() && names[split] == "$sort") {
    bson_iter_t sort_it;
    if (bson_iter_init_find(&sort_it, stages[split].get(), "$sort") && BSON_ITER_HOLDS_DOCUMENT(&sort_it)) {
      merge_sort = StageDoc(sort_it);
    }
    ++split;
    if (split < stages.size() && names[split] == "$limit") {
      ++split;
      limit_again = true;
    }
  }

  // What each shard's cursor absorbs: the leading $match, $sort, $limit.
  FindParams find;
  find.db = params.db;
  find.coll = params.coll;
  find.hint = params.hint;  // the cursor's plan is the hinted one
  find.hint_index = params.hint_index.Copy();
  size_t absorbed = 0;
  if (const bson_t* match = pipeline.leading_match()) {
    find.filter = bson::BsonDoc::CopyOf(match);
    ++absorbed;
  }
  if (const bson_t* sort = pipeline.leading_sort(); sort && absorbed < split && names[absorbed] == "$sort") {
    find.sort = bson::BsonDoc::CopyOf(sort);
    ++absorbed;
  }
  if (std::optional<int64_t> limit = pipeline.leading_limit();
      limit && absorbed < split && names[absorbed] == "$limit") {
    find.limit = *limit;
    ++absorbed;
  }
  ASSIGN_OR_RETURN(bson::BsonDoc find_explain, ExplainFind(find, ExplainVerbosity::kQueryPlanner));

  BSON_APPEND_UTF8(out.mutable_get(), "mergeType", "mongos");
  bson_t split_doc;
  bson_append_document_begin(out.mutable_get(), "splitPipeline", -1, &split_doc);
  std::vector<bson::BsonDoc> shards_part;
  for (size_t i = 0; i < split; ++i) shards_part.push_back(stages[i].Copy());
  AppendArray(&split_doc, "shardsPart", shards_part);
  std::vector<bson::BsonDoc> merger;
  {
    bson::BsonDoc merge_cursors;
    bson_t spec;
    bson_append_document_begin(merge_cursors.mutable_get(), "$mergeCursors", -1, &spec);
    if (merge_sort) BSON_APPEND_DOCUMENT(&spec, "sort", merge_sort->get());
    BSON_APPEND_BOOL(&spec, "compareWholeSortKey", false);
    BSON_APPEND_UTF8(&spec, "tailableMode", "normal");
    BSON_APPEND_UTF8(&spec, "nss", Namespace(params.db, params.coll).c_str());
    BSON_APPEND_BOOL(&spec, "allowPartialResults", false);
    bson_append_document_end(merge_cursors.mutable_get(), &spec);
    merger.push_back(std::move(merge_cursors));
  }
  if (limit_again) merger.push_back(stages[split - 1].Copy());
  for (size_t i = split; i < stages.size(); ++i) merger.push_back(stages[i].Copy());
  AppendArray(&split_doc, "mergerPart", merger);
  bson_append_document_end(out.mutable_get(), &split_doc);

  // Per shard: its plan from the find explain, then its unabsorbed stages.
  bson_iter_t shard_it, rejected_it;
  bson::BsonDoc rejected;  // the find explain's, an array document
  if (bson_iter_init(&rejected_it, find_explain.get()) &&
      bson_iter_find_descendant(&rejected_it, "queryPlanner.rejectedPlans", &rejected_it) &&
      BSON_ITER_HOLDS_ARRAY(&rejected_it)) {
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_array(&rejected_it, &len, &data);
    rejected = bson::BsonDoc::CopyOf(data, len);
  }
  bson_t shards;
  bson_append_document_begin(out.mutable_get(), "shards", -1, &shards);
  if (bson_iter_init(&shard_it, find_explain.get()) &&
      bson_iter_find_descendant(&shard_it, "queryPlanner.winningPlan.shards", &shard_it) &&
      BSON_ITER_HOLDS_ARRAY(&shard_it)) {
    bson_iter_t each;
    bson_iter_recurse(&shard_it, &each);
    while (bson_iter_next(&each)) {
      bson::BsonDoc shard = StageDoc(each);
      bson_iter_t name_it, plan_it;
      if (!bson_iter_init_find(&name_it, shard.get(), "shardName") ||
          !bson_iter_init_find(&plan_it, shard.get(), "winningPlan")) {
        continue;
      }
      bson::BsonDoc plan = StageDoc(plan_it);
      bson::BsonDoc cursor;
      bson_t cursor_spec, query_planner;
      bson_append_document_begin(cursor.mutable_get(), "$cursor", -1, &cursor_spec);
      bson_append_document_begin(&cursor_spec, "queryPlanner", -1, &query_planner);
      BSON_APPEND_UTF8(&query_planner, "namespace", Namespace(params.db, params.coll).c_str());
      BSON_APPEND_BOOL(&query_planner, "indexFilterSet", false);
      BSON_APPEND_DOCUMENT(&query_planner, "parsedQuery", find.filter.get());
      BSON_APPEND_DOCUMENT(&query_planner, "winningPlan", plan.get());
      BSON_APPEND_ARRAY(&query_planner, "rejectedPlans", rejected.get());
      bson_append_document_end(&cursor_spec, &query_planner);
      bson_append_document_end(cursor.mutable_get(), &cursor_spec);
      std::vector<bson::BsonDoc> shard_stages;
      shard_stages.push_back(std::move(cursor));
      for (size_t i = absorbed; i < split; ++i) shard_stages.push_back(stages[i].Copy());

      bson_t entry;
      bson_append_document_begin(&shards, bson_iter_utf8(&name_it, nullptr), -1, &entry);
      AppendArray(&entry, "stages", shard_stages);
      bson_append_document_end(&shards, &entry);
    }
  }
  bson_append_document_end(out.mutable_get(), &shards);
  return out;
}

}  // namespace tigerdoc::engine
