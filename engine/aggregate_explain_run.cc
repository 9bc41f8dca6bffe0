#include "engine/aggregate_explain_run.h"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "engine/query/sort.h"

namespace tigerdoc::engine {
namespace {

using Clock = std::chrono::steady_clock;
using MaybeDoc = std::optional<bson::BsonDoc>;

// Counts what a stage returns and the time spent in it (its inputs'
// included, as MongoDB's executionTimeMillisEstimate).
class CountingStage : public agg::Stage {
 public:
  CountingStage(agg::StagePtr inner, StageRunStats* stats) : inner_(std::move(inner)), stats_(stats) {}

  StatusWith<MaybeDoc> Next() override {
    const Clock::time_point started = Clock::now();
    StatusWith<MaybeDoc> next = inner_->Next();
    stats_->time += Clock::now() - started;
    if (next.ok() && next.value()) ++stats_->n_returned;
    if (next.ok() && !next.value()) {
      bson_t own = BSON_INITIALIZER;
      inner_->AppendExplainStats(&own);
      stats_->own_stats.assign(reinterpret_cast<const char*>(bson_get_data(&own)), own.len);
      bson_destroy(&own);
    }
    return next;
  }

 private:
  agg::StagePtr inner_;
  StageRunStats* stats_;
};

// Hands the executor's documents to the shard each lives on: a shard's
// reader gets its own documents in executor order; documents of other
// shards wait in their queues.
class ShardDemux {
 public:
  ShardDemux(query::PlanExecutor* exec, storage::Session& session) : exec_(exec), session_(session) {}

  StatusWith<MaybeDoc> Next(int shard) {
    std::deque<bson::BsonDoc>& queue = queues_[shard];
    while (queue.empty() && !exhausted_) {
      std::vector<bson::BsonDoc> batch;
      RETURN_IF_ERROR(exec_->FillBatch(session_, kBatch, kMaxBytes, &batch, &exhausted_));
      for (bson::BsonDoc& doc : batch) {
        ASSIGN_OR_RETURN(storage::ShardedRecordStore::Location where,
                         exec_->collection()->store->LocationOf(session_, doc.get()));
        queues_[where.shard].push_back(std::move(doc));
      }
    }
    if (queue.empty()) return MaybeDoc();
    bson::BsonDoc doc = std::move(queue.front());
    queue.pop_front();
    return MaybeDoc(std::move(doc));
  }

 private:
  static constexpr int64_t kBatch = 64;
  static constexpr int64_t kMaxBytes = 4 << 20;
  query::PlanExecutor* exec_;
  storage::Session& session_;
  std::map<int, std::deque<bson::BsonDoc>> queues_;
  bool exhausted_ = false;
};

// One shard's $cursor: its documents from the demux, counted and timed.
class ShardSource : public agg::DocumentSource {
 public:
  ShardSource(ShardDemux* demux, int shard, StageRunStats* stats)
      : demux_(demux), shard_(shard), stats_(stats) {}

  StatusWith<MaybeDoc> Next() override {
    const Clock::time_point started = Clock::now();
    StatusWith<MaybeDoc> next = demux_->Next(shard_);
    stats_->time += Clock::now() - started;
    if (next.ok() && next.value()) ++stats_->n_returned;
    return next;
  }

 private:
  ShardDemux* demux_;
  int shard_;
  StageRunStats* stats_;
};

// The merger's input ($mergeCursors): the shards' outputs one after
// another, or merged by sort key when each is sorted.
class MergeSource : public agg::DocumentSource {
 public:
  MergeSource(std::vector<agg::StagePtr> inputs, std::optional<query::SortSpec> sort)
      : inputs_(std::move(inputs)), sort_(std::move(sort)), heads_(inputs_.size()) {}

  StatusWith<MaybeDoc> Next() override {
    if (!sort_) {
      while (current_ < inputs_.size()) {
        ASSIGN_OR_RETURN(MaybeDoc doc, inputs_[current_]->Next());
        if (doc) return doc;
        ++current_;
      }
      return MaybeDoc();
    }
    if (!primed_) {
      for (size_t i = 0; i < inputs_.size(); ++i) RETURN_IF_ERROR(Advance(i));
      primed_ = true;
    }
    // The smallest head; ties go to the earlier shard.
    std::optional<size_t> best;
    for (size_t i = 0; i < heads_.size(); ++i) {
      if (heads_[i].doc && (!best || heads_[i].key < heads_[*best].key)) best = i;
    }
    if (!best) return MaybeDoc();
    MaybeDoc out = std::move(heads_[*best].doc);
    RETURN_IF_ERROR(Advance(*best));
    return out;
  }

 private:
  struct Head {
    MaybeDoc doc;
    std::string key;
  };

  Status Advance(size_t i) {
    ASSIGN_OR_RETURN(heads_[i].doc, inputs_[i]->Next());
    if (heads_[i].doc) heads_[i].key = sort_->KeyFor(heads_[i].doc->get());
    return Status::OK();
  }

  std::vector<agg::StagePtr> inputs_;
  std::optional<query::SortSpec> sort_;
  std::vector<Head> heads_;
  size_t current_ = 0;
  bool primed_ = false;
};

// Builds stages [from, to) of `pipeline` over `stage`, each counted into
// the next entry of `stats`.
StatusWith<agg::StagePtr> BuildCounted(const agg::Pipeline& pipeline, size_t from, size_t to,
                                       agg::StagePtr stage, std::vector<StageRunStats>* stats) {
  for (size_t i = from; i < to; ++i) {
    const agg::StageSpec& spec = pipeline.stage(i);
    ASSIGN_OR_RETURN(agg::StagePtr built,
                     spec.Build(spec.is_source() ? nullptr : std::move(stage), &pipeline.context()));
    stats->emplace_back();
    stage = std::make_unique<CountingStage>(std::move(built), &stats->back());
  }
  return stage;
}

bool RunsPerDocument(std::string_view name) {
  static const std::set<std::string_view> kStages = {"$match",       "$project",     "$addFields",
                                                      "$set",         "$unset",       "$unwind",
                                                      "$replaceRoot", "$replaceWith", "$redact",
                                                      "$_internalUnpackBucket",
                                                      "$_internalBucketView"};
  return kStages.count(name) > 0;
}

}  // namespace

PipelineSplit SplitOf(const agg::Pipeline& pipeline, const bson_t* pipeline_array) {
  PipelineSplit split;
  const size_t n = pipeline.size();
  auto name = [&pipeline](size_t i) { return pipeline.stage(i).name(); };
  while (split.split < n && RunsPerDocument(name(split.split))) ++split.split;
  if (split.split < n && name(split.split) == "$sort") {
    const std::string key = std::to_string(split.split);
    bson_iter_t it;
    if (bson_iter_init(&it, pipeline_array) &&
        bson_iter_find_descendant(&it, (key + ".$sort").c_str(), &it) && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      split.merge_sort = bson::BsonDoc::CopyOf(data, len);
    }
    ++split.split;
    if (split.split < n && name(split.split) == "$limit") {
      ++split.split;
      split.limit_again = true;
    }
  }
  if (const bson_t* match = pipeline.leading_match()) {
    split.cursor_filter = bson::BsonDoc::CopyOf(match);
    ++split.absorbed;
  }
  if (const bson_t* sort = pipeline.leading_sort();
      sort && split.absorbed < split.split && name(split.absorbed) == "$sort") {
    split.cursor_sort = bson::BsonDoc::CopyOf(sort);
    // The sort's top-k (a $limit after it, plus $skips between) bounds the
    // query even when the $limit is not absorbed ($sort, $skip, $limit).
    if (const int64_t k = pipeline.sort_limit(split.absorbed); k > 0) split.cursor_limit = k;
    ++split.absorbed;
    if (std::optional<int64_t> limit = pipeline.leading_limit();
        limit && split.absorbed < split.split && name(split.absorbed) == "$limit") {
      ++split.absorbed;
    }
  }
  return split;
}

StatusWith<PipelineRunStats> RunSplitPipeline(const agg::Pipeline& pipeline, const PipelineSplit& split,
                                              query::PlanExecutor* exec, const std::vector<int>& shards,
                                              std::optional<std::vector<bson::BsonDoc>> input,
                                              storage::Session& session,
                                              std::vector<bson::BsonDoc>* results) {
  PipelineRunStats stats;
  // Stats are filled through pointers: sized up front, never reallocated.
  stats.shards.resize(shards.size());
  const size_t end = pipeline.ends_with_writer() ? pipeline.size() - 1 : pipeline.size();
  stats.merger.reserve((split.limit_again ? 1 : 0) + (end > split.split ? end - split.split : 0));

  std::optional<ShardDemux> demux;
  std::unique_ptr<agg::DocumentSource> merged;
  if (exec != nullptr && exec->collection() != nullptr) {
    demux.emplace(exec, session);
    std::vector<agg::StagePtr> outputs;
    for (size_t i = 0; i < shards.size(); ++i) {
      ShardRunStats& shard = stats.shards[i];
      shard.shard = shards[i];
      shard.stages.reserve(split.split - split.absorbed);
      agg::StagePtr stage = agg::MakeSourceStage(std::make_unique<ShardSource>(&*demux, shards[i], &shard.cursor));
      ASSIGN_OR_RETURN(stage, BuildCounted(pipeline, split.absorbed, split.split, std::move(stage), &shard.stages));
      outputs.push_back(std::move(stage));
    }
    std::optional<query::SortSpec> sort;
    if (split.merge_sort) {
      ASSIGN_OR_RETURN(query::SortSpec spec, query::SortSpec::Parse(split.merge_sort->get()));
      sort = std::move(spec);
    }
    merged = std::make_unique<MergeSource>(std::move(outputs), std::move(sort));
  } else if (input) {
    merged = std::make_unique<agg::VectorDocumentSource>(std::move(*input));
  }

  agg::StagePtr stage = agg::MakeSourceStage(std::move(merged));
  if (split.limit_again) {
    ASSIGN_OR_RETURN(stage, BuildCounted(pipeline, split.split - 1, split.split, std::move(stage), &stats.merger));
  }
  ASSIGN_OR_RETURN(stage, BuildCounted(pipeline, split.split, end, std::move(stage), &stats.merger));
  while (true) {
    ASSIGN_OR_RETURN(MaybeDoc doc, stage->Next());
    if (!doc) break;
    if (results) results->push_back(std::move(*doc));
  }
  return stats;
}

}  // namespace tigerdoc::engine
