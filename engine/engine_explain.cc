// Engine::ExplainFind: explain of find, count and distinct, in MongoDB's
// shape wrapped in tigerdoc's shard fan-out (wire/README.md):
//
//   queryPlanner.winningPlan = { stage: SINGLE_SHARD | SHARD_MERGE | SHARD_MERGE_SORT,
//                                [sortPattern, skipAmount, limitAmount],
//                                shards: [ { shardName, winningPlan: <shard plan> } ] }
//
// A shard plan is what one mongod would run, outermost first:
//   [COUNT | RECORD_STORE_FAST_COUNT]            count
//   [PROJECTION_DEFAULT | RETURN_KEY]            projection / returnKey
//   [LIMIT limitAmount]                          unsorted with a limit
//   [SKIP skipAmount]                            one shard only (else the merge skips)
//   [SORT sortPattern memLimit [limitAmount]]    blocking sort (top-k with a limit)
//   [TEXT_MATCH indexPrefix indexName parsedTextQuery]  $text, over
//     TEXT_OR filter <- IXSCAN per term           the text score is asked for
//     | FETCH filter <- OR <- IXSCAN per term     (one term: FETCH <- IXSCAN)
//     | COLLSCAN                                  a text index of the earlier format
//   IDHACK filter                                 point reads (shard key and _id fixed)
//   | COLLSCAN filter direction                   (CLUSTERED_IXSCAN with idBounds when
//                                                 the filter bounds _id: record keys
//                                                 order by _id in a shard or partition)
//   | FETCH filter <- IXSCAN _id_
//   | FETCH [filter] <- IXSCAN <index>            a secondary index
//   | PROJECTION_COVERED <- IXSCAN <index>        covered: no fetch
//   | FETCH [filter] <- OR <- IXSCAN, IXSCAN ...  one scan per $or branch
//   | FETCH [filter] <- SORT_MERGE sortPattern <- IXSCAN, ...  a sorted $or
//                                                 whose every branch scan gives the sort
// IXSCAN shows keyPattern, indexName, isMultiKey, isUnique, isSparse,
// isPartial, direction and indexBounds as MongoDB prints them; an index
// scan that provides the sort over several shards is a SORT_MERGE of the
// shards' streams instead of SHARD_MERGE_SORT over blocking sorts.
// rejectedPlans lists the other candidates (shard plans), and tigerdoc's
// own `planner` section the cost of each (index keys counted in the
// bounds, plus fetches; see engine/query/planner/query_planner.h).
// With several shards each one returns up to skip+limit results and the
// merge applies skip and limit, as mongos does.
// executionStats adds nReturned, executionTimeMillis, totalKeysExamined and
// totalDocsExamined overall, per shard and on the scan stages.

#include <chrono>
#include <string>

#include "engine/engine.h"
#include "engine/operation_collation.h"
#include "engine/query/deadline.h"
#include "engine/explain_plan.h"
#include "engine/query/plan_executor.h"

namespace tigerdoc::engine {
namespace {

std::string ShardName(int shard) { return "shard" + std::to_string(shard); }

void AppendNumber(bson_t* doc, const char* field, int64_t value) { AppendExplainNumber(doc, field, value); }

// The shards an executor reads, in order.
std::vector<int> ShardsRead(const query::PlanExecutor& exec) {
  std::vector<int> shards;
  for (const query::ScanRange& range : exec.ranges()) {
    if (shards.empty() || shards.back() != range.shard) shards.push_back(range.shard);
  }
  return shards;
}

class PlanWriter {
 public:
  PlanWriter(const FindParams& params, const query::PlanExecutor& exec, bool single_shard)
      : params_(params), exec_(exec), single_shard_(single_shard) {}

  // Appends the shard plan of `shard` as `field` of `parent`; with stats
  // when `stats` is given.
  void Append(bson_t* parent, const char* field, const query::ShardExecStats* stats,
              bool with_stats) const {
    bson::BsonDoc top = Scan(stats, with_stats);
    const query::FindSpec& spec = exec_.spec();
    auto wrap = [&top](const char* stage, auto&& fill) {
      bson::BsonDoc outer;
      BSON_APPEND_UTF8(outer.mutable_get(), "stage", stage);
      fill(outer.mutable_get());
      BSON_APPEND_DOCUMENT(outer.mutable_get(), "inputStage", top.get());
      top = std::move(outer);
    };
    if (const fts::TextQuery* text = exec_.text_query()) {
      // MongoDB 7: TEXT_MATCH <- FETCH <- [OR <-] IXSCAN per term, or
      // TEXT_MATCH <- TEXT_OR <- IXSCAN per term when the text score is
      // asked for. A text index of the earlier format has no terms to
      // read: the TEXT_MATCH then sits on the collection scan.
      if (exec_.text_plan() && exec_.wants_text_score()) top = TextOrDoc(stats, with_stats);
      wrap("TEXT_MATCH", [&](bson_t* d) {
        BSON_APPEND_DOCUMENT(d, "indexPrefix", exec_.text_index_prefix().get());
        BSON_APPEND_UTF8(d, "indexName", exec_.text_index_name().c_str());
        bson_t parsed;
        BSON_APPEND_DOCUMENT_BEGIN(d, "parsedTextQuery", &parsed);
        auto list = [&parsed](const char* name, const auto& values) {
          bson_t array;
          bson_append_array_begin(&parsed, name, -1, &array);
          int i = 0;
          for (const std::string& v : values) {
            const std::string key = std::to_string(i++);
            bson_append_utf8(&array, key.c_str(), -1, v.data(), static_cast<int>(v.size()));
          }
          bson_append_array_end(&parsed, &array);
        };
        list("terms", text->terms());
        list("negatedTerms", text->negated_terms());
        list("phrases", text->phrases());
        list("negatedPhrases", text->negated_phrases());
        bson_append_document_end(d, &parsed);
        BSON_APPEND_INT32(d, "textIndexVersion", fts::kTextIndexVersion);
        if (with_stats && stats) AppendNumber(d, "nReturned", stats->n_returned);
      });
    }
    const bool is_count = params_.explained == ExplainedCommand::kCount;
    int64_t shard_limit = spec.limit > 0 ? (single_shard_ ? spec.limit : spec.skip + spec.limit) : 0;
    if (exec_.blocking_sort()) {
      wrap("SORT", [&](bson_t* d) {
        BSON_APPEND_DOCUMENT(d, "sortPattern", spec.sort.get());
        AppendNumber(d, "memLimit", spec.max_sort_bytes);
        if (spec.limit > 0) AppendNumber(d, "limitAmount", spec.skip + spec.limit);
        BSON_APPEND_UTF8(d, "type", "simple");
      });
      if (single_shard_ && spec.skip > 0) {
        wrap("SKIP", [&](bson_t* d) { AppendNumber(d, "skipAmount", spec.skip); });
      }
    } else {
      if (single_shard_ && spec.skip > 0) {
        wrap("SKIP", [&](bson_t* d) { AppendNumber(d, "skipAmount", spec.skip); });
      }
      if (shard_limit > 0) {
        wrap("LIMIT", [&](bson_t* d) { AppendNumber(d, "limitAmount", shard_limit); });
      }
    }
    if (spec.return_key) {
      wrap("RETURN_KEY", [&](bson_t* d) {
        bson_t empty;
        bson_append_array_begin(d, "sortKeyMetaFields", -1, &empty);
        bson_append_array_end(d, &empty);
      });
    } else if (!spec.projection.empty() && Covered()) {
      // PROJECTION_COVERED sits on the scan already.
    } else if (!spec.projection.empty()) {
      wrap("PROJECTION_DEFAULT",
           [&](bson_t* d) { BSON_APPEND_DOCUMENT(d, "transformBy", spec.projection.get()); });
    } else if (params_.explained == ExplainedCommand::kDistinct) {
      wrap(exec_.distinct_scan() ? "PROJECTION_COVERED" : "PROJECTION_DEFAULT", [&](bson_t* d) {
        bson_t transform;
        bson_append_document_begin(d, "transformBy", -1, &transform);
        BSON_APPEND_INT32(&transform, "_id", 0);
        BSON_APPEND_INT32(&transform, params_.distinct_key.c_str(), 1);
        bson_append_document_end(d, &transform);
      });
    }
    if (is_count) {
      if (params_.filter.empty() && params_.hint == FindHint::kNone) {
        // Answered from collection metadata: no scan at all.
        bson::BsonDoc fast;
        BSON_APPEND_UTF8(fast.mutable_get(), "stage", "RECORD_STORE_FAST_COUNT");
        top = std::move(fast);
      } else {
        wrap("COUNT", [&](bson_t* d) {
          if (with_stats && stats) AppendNumber(d, "nCounted", stats->n_returned);
        });
      }
    }
    BSON_APPEND_DOCUMENT(parent, field, top.get());
  }

 // A candidate plan's shard plan, without stats (rejectedPlans).
  static bson::BsonDoc PlanDoc(const query::planner::QueryPlan& plan, const FindParams& params) {
    if (plan.kind == query::planner::QueryPlan::Kind::kCollScan) {
      bson::BsonDoc scan;
      BSON_APPEND_UTF8(scan.mutable_get(), "stage", "COLLSCAN");
      if (!params.filter.empty()) BSON_APPEND_DOCUMENT(scan.mutable_get(), "filter", params.filter.get());
      BSON_APPEND_UTF8(scan.mutable_get(), "direction", "forward");
      return scan;
    }
    return IndexPlanDoc(plan, params, nullptr, false);
  }

 private:
  bool Covered() const {
    const query::planner::PlanChoice* choice = exec_.plan();
    return exec_.index_plan() && choice->winner.kind == query::planner::QueryPlan::Kind::kIndexScan &&
           choice->winner.scans[0].covered;
  }

  // TEXT_OR: the union of the term scans, fetching and scoring each
  // document once (MongoDB's blocking TEXT_OR; tigerdoc streams it and
  // scores as it returns documents).
  bson::BsonDoc TextOrDoc(const query::ShardExecStats* stats, bool with_stats) const {
    const query::planner::QueryPlan& plan = exec_.plan()->winner;
    bson::BsonDoc out;
    bson_t* d = out.mutable_get();
    BSON_APPEND_UTF8(d, "stage", "TEXT_OR");
    if (!params_.filter.empty()) BSON_APPEND_DOCUMENT(d, "filter", params_.filter.get());
    if (with_stats && stats) {
      AppendNumber(d, "nReturned", stats->n_returned);
      AppendNumber(d, "keysExamined", stats->keys_examined);
      AppendNumber(d, "docsExamined", stats->docs_examined);
    }
    bson_t list;
    bson_append_array_begin(d, "inputStages", -1, &list);
    for (size_t i = 0; i < plan.scans.size(); ++i) {
      bson::BsonDoc one = IxscanDoc(plan.scans[i], nullptr, false);
      const std::string key = std::to_string(i);
      BSON_APPEND_DOCUMENT(&list, key.c_str(), one.get());
    }
    bson_append_array_end(d, &list);
    return out;
  }

  static bson::BsonDoc IxscanDoc(const query::planner::IndexScanPlan& scan,
                                 const query::ShardExecStats* stats, bool with_stats) {
    const index::IndexSpec& spec = *scan.index;
    bson::BsonDoc out;
    bson_t* d = out.mutable_get();
    BSON_APPEND_UTF8(d, "stage", "IXSCAN");
    if (spec.text) {
      // One term's entries, highest score first: MongoDB's backward scan
      // of a simple key range, shown with empty bounds.
      BSON_APPEND_DOCUMENT(d, "keyPattern", spec.key_pattern.get());
      BSON_APPEND_UTF8(d, "indexName", spec.name.c_str());
      BSON_APPEND_BOOL(d, "isMultiKey", true);
      BSON_APPEND_BOOL(d, "isUnique", spec.unique);
      BSON_APPEND_BOOL(d, "isSparse", spec.sparse);
      BSON_APPEND_BOOL(d, "isPartial", spec.partial_filter.has_value());
      BSON_APPEND_INT32(d, "indexVersion", spec.version);
      BSON_APPEND_UTF8(d, "direction", "backward");
      BSON_APPEND_DOCUMENT(d, "indexBounds", bson::BsonDoc().get());
      if (with_stats && stats) AppendNumber(d, "keysExamined", stats->keys_examined);
      return out;
    }
    // A wildcard index shows the index it is for the scanned path:
    // {$_path: 1, <path>: <direction>} (query/planner/wildcard_bounds.h).
    const bool wildcard = spec.wildcard != nullptr && scan.shape.fields.size() == 2;
    if (wildcard) {
      bson_t key_pattern;
      bson_append_document_begin(d, "keyPattern", -1, &key_pattern);
      for (const query::planner::IndexKeyField& field : scan.shape.fields) {
        bson_append_int32(&key_pattern, field.path.c_str(), -1,
                          field.direction == keystring::Direction::kDescending ? -1 : 1);
      }
      bson_append_document_end(d, &key_pattern);
    } else {
      BSON_APPEND_DOCUMENT(d, "keyPattern", spec.key_pattern.get());
    }
    BSON_APPEND_UTF8(d, "indexName", spec.name.c_str());
    // A collated index says so, as MongoDB's IXSCAN does.
    if (spec.collator != nullptr) BSON_APPEND_DOCUMENT(d, "collation", spec.collator->spec());
    BSON_APPEND_BOOL(d, "isMultiKey", wildcard ? scan.shape.fields[1].multikey : spec.multikey);
    BSON_APPEND_BOOL(d, "isUnique", spec.unique);
    BSON_APPEND_BOOL(d, "isSparse", spec.sparse);
    BSON_APPEND_BOOL(d, "isPartial", spec.partial_filter.has_value());
    BSON_APPEND_INT32(d, "indexVersion", spec.version);
    BSON_APPEND_UTF8(d, "direction", scan.backward ? "backward" : "forward");
    bson::BsonDoc bounds = scan.bounds.ToBson(scan.shape, scan.backward);
    BSON_APPEND_DOCUMENT(d, "indexBounds", bounds.get());
    if (with_stats && stats) {
      AppendNumber(d, "keysExamined", stats->keys_examined);
    }
    return out;
  }

  // FETCH / PROJECTION_COVERED over IXSCAN, or FETCH over OR.
  static bson::BsonDoc IndexPlanDoc(const query::planner::QueryPlan& plan, const FindParams& params,
                                    const query::ShardExecStats* stats, bool with_stats) {
    bson::BsonDoc input;
    if (plan.kind == query::planner::QueryPlan::Kind::kOr) {
      // A sorted $or whose branches each give the sort: MongoDB's
      // SORT_MERGE of the branch scans (records deduplicated), no SORT.
      BSON_APPEND_UTF8(input.mutable_get(), "stage", plan.sort_merge ? "SORT_MERGE" : "OR");
      if (plan.sort_merge) BSON_APPEND_DOCUMENT(input.mutable_get(), "sortPattern", params.sort.get());
      bson_t list;
      bson_append_array_begin(input.mutable_get(), "inputStages", -1, &list);
      for (size_t i = 0; i < plan.scans.size(); ++i) {
        bson::BsonDoc one = IxscanDoc(plan.scans[i], nullptr, false);
        std::string key = std::to_string(i);
        BSON_APPEND_DOCUMENT(&list, key.c_str(), one.get());
      }
      bson_append_array_end(input.mutable_get(), &list);
      if (with_stats && stats) AppendNumber(input.mutable_get(), "keysExamined", stats->keys_examined);
    } else {
      input = IxscanDoc(plan.scans[0], stats, with_stats);
    }
    bson::BsonDoc out;
    bson_t* d = out.mutable_get();
    if (plan.kind == query::planner::QueryPlan::Kind::kIndexScan && plan.scans[0].covered) {
      BSON_APPEND_UTF8(d, "stage", "PROJECTION_COVERED");
      BSON_APPEND_DOCUMENT(d, "transformBy", params.projection.get());
      if (with_stats && stats) AppendNumber(d, "nReturned", stats->n_returned);
    } else {
      BSON_APPEND_UTF8(d, "stage", "FETCH");
      if (plan.NeedsFilter() && !params.filter.empty()) {
        BSON_APPEND_DOCUMENT(d, "filter", params.filter.get());
      }
      if (with_stats && stats) {
        AppendNumber(d, "nReturned", stats->n_returned);
        AppendNumber(d, "docsExamined", stats->docs_examined);
      }
    }
    BSON_APPEND_DOCUMENT(d, "inputStage", input.get());
    return out;
  }

  bool IdIndexScan() const {
    auto coll = exec_.collection();
    return exec_.spec().hint == query::IndexHint::kIdIndex && coll &&
           coll->store->shard_key_is_id();
  }

  bson::BsonDoc Scan(const query::ShardExecStats* stats, bool with_stats) const {
    const query::FindSpec& spec = exec_.spec();
    const bool count_scan = params_.explained == ExplainedCommand::kCount && exec_.CanCountScan();
    if (count_scan || exec_.distinct_scan()) {
      // COUNT_SCAN: the exact index scan counts entries, fetching nothing;
      // DISTINCT_SCAN: it reads one entry per leading-field value.
      bson::BsonDoc scan = IxscanDoc(exec_.plan()->winner.scans[0], stats, with_stats);
      bson::BsonDoc renamed;
      bson_iter_t it;
      bson_iter_init(&it, scan.get());
      while (bson_iter_next(&it)) {
        if (std::string_view(bson_iter_key(&it)) == "stage") {
          BSON_APPEND_UTF8(renamed.mutable_get(), "stage", count_scan ? "COUNT_SCAN" : "DISTINCT_SCAN");
        } else {
          bson_append_iter(renamed.mutable_get(), bson_iter_key(&it), -1, &it);
        }
      }
      return renamed;
    }
    if (exec_.index_plan()) return IndexPlanDoc(exec_.plan()->winner, params_, stats, with_stats);
    bson::BsonDoc scan;
    bson_t* d = scan.mutable_get();
    if (IdIndexScan()) {
      // Shard tables of an _id-sharded collection are clustered by _id: the
      // scan is the _id index's, the fetch applies the filter.
      BSON_APPEND_UTF8(d, "stage", "IXSCAN");
      bson_t key_pattern, bounds, id_bounds;
      bson_append_document_begin(d, "keyPattern", -1, &key_pattern);
      BSON_APPEND_INT32(&key_pattern, "_id", 1);
      bson_append_document_end(d, &key_pattern);
      BSON_APPEND_UTF8(d, "indexName", "_id_");
      BSON_APPEND_BOOL(d, "isMultiKey", false);
      BSON_APPEND_BOOL(d, "isUnique", true);
      BSON_APPEND_UTF8(d, "direction", "forward");
      bson_append_document_begin(d, "indexBounds", -1, &bounds);
      bson_append_array_begin(&bounds, "_id", -1, &id_bounds);
      std::string range = "[" + BoundText(spec.min, "MinKey") + ", " +
                          BoundText(spec.max, "MaxKey") + (spec.max.empty() ? "]" : ")");
      BSON_APPEND_UTF8(&id_bounds, "0", range.c_str());
      bson_append_array_end(&bounds, &id_bounds);
      bson_append_document_end(d, &bounds);
      if (with_stats && stats) {
        AppendNumber(d, "nReturned", stats->docs_examined);
        AppendNumber(d, "keysExamined", stats->docs_examined);
      }
      bson::BsonDoc fetch;
      BSON_APPEND_UTF8(fetch.mutable_get(), "stage", "FETCH");
      if (!params_.filter.empty()) {
        BSON_APPEND_DOCUMENT(fetch.mutable_get(), "filter", params_.filter.get());
      }
      if (with_stats && stats) {
        AppendNumber(fetch.mutable_get(), "nReturned", stats->n_returned);
        AppendNumber(fetch.mutable_get(), "docsExamined", stats->docs_examined);
      }
      BSON_APPEND_DOCUMENT(fetch.mutable_get(), "inputStage", scan.get());
      return fetch;
    }
    if (exec_.point_reads()) {
      // The filter fixes each record key (shard key and _id): point reads,
      // MongoDB's IDHACK. The filter still runs on what they find.
      BSON_APPEND_UTF8(d, "stage", "IDHACK");
      if (!params_.filter.empty()) BSON_APPEND_DOCUMENT(d, "filter", params_.filter.get());
      if (with_stats && stats) {
        AppendNumber(d, "nReturned", stats->n_returned);
        AppendNumber(d, "keysExamined", stats->docs_examined);
        AppendNumber(d, "docsExamined", stats->docs_examined);
      }
      return scan;
    }
    // Record keys order by _id within a shard (sharded by _id) or a
    // partition: _id bounds narrow the scan, as a clustered collection's.
    const query::planner::IndexBounds* id_bounds = exec_.id_bounds();
    BSON_APPEND_UTF8(d, "stage", id_bounds ? "CLUSTERED_IXSCAN" : "COLLSCAN");
    if (!params_.filter.empty()) BSON_APPEND_DOCUMENT(d, "filter", params_.filter.get());
    BSON_APPEND_UTF8(d, "direction", exec_.backward() ? "backward" : "forward");
    if (id_bounds) {
      query::planner::IndexShape id_shape;
      id_shape.fields.push_back(
          query::planner::IndexKeyField{"_id", keystring::Direction::kAscending, false, false});
      BSON_APPEND_DOCUMENT(d, "idBounds", id_bounds->ToBson(id_shape).get());
    }
    BSON_APPEND_BOOL(d, "partitionScan", exec_.targeted());
    if (with_stats && stats) {
      AppendNumber(d, "nReturned", stats->n_returned);
      AppendNumber(d, "docsExamined", stats->docs_examined);
    }
    return scan;
  }

  static std::string BoundText(const bson::BsonDoc& bound, const char* none) {
    bson_iter_t it;
    if (bound.empty() || !bson_iter_init(&it, bound.get()) || !bson_iter_next(&it)) return none;
    bson::BsonDoc one;
    bson_append_iter(one.mutable_get(), "v", 1, &it);
    char* json = bson_as_relaxed_extended_json(one.get(), nullptr);
    std::string text = json ? json : "";
    bson_free(json);
    // {"v" : <value> } -> <value>
    size_t colon = text.find(':');
    if (colon != std::string::npos && text.size() >= colon + 3) {
      text = text.substr(colon + 2, text.size() - colon - 4);
    }
    return text;
  }

  const FindParams& params_;
  const query::PlanExecutor& exec_;
  bool single_shard_;
};

}  // namespace

void AppendExplainNumber(bson_t* doc, const char* field, int64_t value) {
  // As MongoDB's BSONObjBuilder::appendNumber(long long): an int when it
  // fits (so explain numbers read as plain numbers in the shell), else a long.
  if (value > -(int64_t{1} << 30) && value < (int64_t{1} << 30)) {
    BSON_APPEND_INT32(doc, field, static_cast<int32_t>(value));
  } else {
    BSON_APPEND_INT64(doc, field, value);
  }
}

bson::BsonDoc ShardPlanDoc(const FindParams& params, const query::PlanExecutor& exec,
                           const query::ShardExecStats* stats, bool with_stats) {
  PlanWriter writer(params, exec, ShardsRead(exec).size() == 1);
  bson::BsonDoc holder;
  writer.Append(holder.mutable_get(), "plan", stats, with_stats);
  bson_iter_t it;
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_init_find(&it, holder.get(), "plan");
  bson_iter_document(&it, &len, &data);
  return bson::BsonDoc::CopyOf(data, len);
}

StatusWith<bson::BsonDoc> Engine::ExplainFind(const FindParams& params, ExplainVerbosity verbosity) {
  std::string ns = Namespace(params.db, params.coll);
  if (catalog_->LookupView(ns) != nullptr) return ExplainOnView(params, verbosity);
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(ns);
  ASSIGN_OR_RETURN(query::FindSpec spec, SpecFor(params, coll.get()));
  auto started = std::chrono::steady_clock::now();
  spec.deadline = query::DeadlineAfter(started, params.max_time_ms);
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(coll, std::move(spec), Planner()));

  const bool is_count = params.explained == ExplainedCommand::kCount;
  bool with_stats = verbosity != ExplainVerbosity::kQueryPlanner;
  int64_t n_returned = 0;
  const bool fast_count = is_count && params.filter.empty() && params.hint == FindHint::kNone;
  if (with_stats && !fast_count) {
    storage::Session session = storage_->NewSession();
    ASSIGN_OR_RETURN(n_returned, exec->CountAll(session, /*count_scan=*/is_count));
  } else if (with_stats && coll) {
    n_returned = std::max<int64_t>(coll->store->TotalStats().count - params.skip, 0);
    if (params.limit > 0) n_returned = std::min(n_returned, params.limit);
  }
  int64_t millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - started).count();

  std::vector<int> shards = ShardsRead(*exec);
  const bool single_shard = shards.size() == 1;
  const bool index_merge = exec->access() == query::PlanExecutor::Access::kIndexMerge;
  const char* merge_stage = single_shard           ? "SINGLE_SHARD"
                            : params.sort.empty() ? "SHARD_MERGE"
                            : index_merge         ? "SORT_MERGE"
                                                  : "SHARD_MERGE_SORT";
  auto stats_of = [&](int shard) -> const query::ShardExecStats* {
    for (const auto& s : exec->shard_stats()) {
      if (s.shard == shard) return &s;
    }
    return nullptr;
  };
  PlanWriter writer(params, *exec, single_shard);
  const bool keys_are_docs = exec->spec().hint == query::IndexHint::kIdIndex && coll &&
                             coll->store->shard_key_is_id();
  auto append_merge_fields = [&](bson_t* d) {
    BSON_APPEND_UTF8(d, "stage", merge_stage);
    if (!single_shard && !params.sort.empty()) BSON_APPEND_DOCUMENT(d, "sortPattern", params.sort.get());
    if (!single_shard && params.skip > 0) AppendNumber(d, "skipAmount", params.skip);
    if (!single_shard && params.limit > 0) AppendNumber(d, "limitAmount", params.limit);
  };

  bson::BsonDoc out;
  bson_t planner, winning, shard_list;
  bson_append_document_begin(out.mutable_get(), "queryPlanner", -1, &planner);
  BSON_APPEND_INT32(&planner, "plannerVersion", 1);
  BSON_APPEND_UTF8(&planner, "namespace", ns.c_str());
  BSON_APPEND_BOOL(&planner, "indexFilterSet", false);
  BSON_APPEND_DOCUMENT(&planner, "parsedQuery", params.filter.get());
  // tigerdoc's own: what the collection's patterns say about its reads.
  if (coll) {
    bson::BsonDoc patterns = PatternExplain(*coll);
    if (!patterns.empty()) BSON_APPEND_DOCUMENT(&planner, "patterns", patterns.get());
  }
  bson_append_document_begin(&planner, "winningPlan", -1, &winning);
  append_merge_fields(&winning);
  bson_append_array_begin(&winning, "shards", -1, &shard_list);
  for (size_t i = 0; i < shards.size(); ++i) {
    bson_t entry;
    std::string key = std::to_string(i);
    bson_append_document_begin(&shard_list, key.c_str(), -1, &entry);
    BSON_APPEND_UTF8(&entry, "shardName", ShardName(shards[i]).c_str());
    writer.Append(&entry, "winningPlan", nullptr, false);
    bson_append_document_end(&shard_list, &entry);
  }
  bson_append_array_end(&winning, &shard_list);
  bson_append_document_end(&planner, &winning);
  bson_t rejected;
  bson_append_array_begin(&planner, "rejectedPlans", -1, &rejected);
  if (const query::planner::PlanChoice* choice = exec->plan()) {
    for (size_t i = 0; i < choice->rejected.size(); ++i) {
      bson::BsonDoc plan = PlanWriter::PlanDoc(choice->rejected[i], params);
      std::string key = std::to_string(i);
      BSON_APPEND_DOCUMENT(&rejected, key.c_str(), plan.get());
    }
  }
  bson_append_array_end(&planner, &rejected);
  bson_append_document_end(out.mutable_get(), &planner);

  if (with_stats) {
    const int64_t total_docs = exec->total_docs_examined();
    const int64_t total_keys = keys_are_docs ? total_docs : exec->total_keys_examined();
    // count returns no documents; its COUNT stages report nCounted.
    const int64_t reported = is_count ? 0 : n_returned;
    bson_t stats, stages, shard_stats;
    bson_append_document_begin(out.mutable_get(), "executionStats", -1, &stats);
    BSON_APPEND_BOOL(&stats, "executionSuccess", true);
    AppendNumber(&stats, "nReturned", reported);
    AppendNumber(&stats, "executionTimeMillis", millis);
    AppendNumber(&stats, "totalKeysExamined", total_keys);
    AppendNumber(&stats, "totalDocsExamined", total_docs);
    bson_append_document_begin(&stats, "executionStages", -1, &stages);
    append_merge_fields(&stages);
    AppendNumber(&stages, "nReturned", reported);
    if (is_count) AppendNumber(&stages, "nCounted", n_returned);
    AppendNumber(&stages, "executionTimeMillis", millis);
    AppendNumber(&stages, "totalKeysExamined", total_keys);
    AppendNumber(&stages, "totalDocsExamined", total_docs);
    if (const query::Sorter* sorter = exec->sorter()) {
      BSON_APPEND_BOOL(&stages, "usedDisk", sorter->used_disk());
      AppendNumber(&stages, "spills", sorter->stats().spills);
      AppendNumber(&stages, "totalDataSizeSorted", sorter->stats().total_data_bytes);
    }
    bson_append_array_begin(&stages, "shards", -1, &shard_stats);
    for (size_t i = 0; i < shards.size(); ++i) {
      const query::ShardExecStats* s = stats_of(shards[i]);
      bson_t entry;
      std::string key = std::to_string(i);
      bson_append_document_begin(&shard_stats, key.c_str(), -1, &entry);
      BSON_APPEND_UTF8(&entry, "shardName", ShardName(shards[i]).c_str());
      BSON_APPEND_BOOL(&entry, "executionSuccess", true);
      AppendNumber(&entry, "nReturned", s ? s->n_returned : 0);
      AppendNumber(&entry, "totalKeysExamined",
                   !s ? 0 : keys_are_docs ? s->docs_examined : s->keys_examined);
      AppendNumber(&entry, "totalDocsExamined", s ? s->docs_examined : 0);
      writer.Append(&entry, "executionStages", s, true);
      bson_append_document_end(&shard_stats, &entry);
    }
    bson_append_array_end(&stages, &shard_stats);
    bson_append_document_end(&stats, &stages);
    if (verbosity == ExplainVerbosity::kAllPlansExecution) {
      // One candidate plan: nothing else was run.
      bson_t all;
      bson_append_array_begin(&stats, "allPlansExecution", -1, &all);
      bson_append_array_end(&stats, &all);
    }
    bson_append_document_end(out.mutable_get(), &stats);
  }

  // Which tables were read, in tigerdoc's own words.
  bson_t sharding, read;
  bson_append_document_begin(out.mutable_get(), "sharding", -1, &sharding);
  if (coll) {
    bson_t key_pattern;
    bson_append_document_begin(&sharding, "shardKey", -1, &key_pattern);
    BSON_APPEND_INT32(&key_pattern, coll->store->shard_key_field().c_str(), 1);
    bson_append_document_end(&sharding, &key_pattern);
    BSON_APPEND_INT32(&sharding, "numShards", coll->store->num_shards());
  }
  BSON_APPEND_BOOL(&sharding, "targeted", exec->targeted());
  bson_append_array_begin(&sharding, "shardsRead", -1, &read);
  for (size_t i = 0; i < shards.size(); ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_UTF8(&read, key.c_str(), ShardName(shards[i]).c_str());
  }
  bson_append_array_end(&sharding, &read);
  bson_append_document_end(out.mutable_get(), &sharding);

  // How the plan was chosen, in tigerdoc's own words: each candidate's cost.
  if (const query::planner::PlanChoice* choice = exec->plan()) {
    bson_t why, others;
    bson_append_document_begin(out.mutable_get(), "planner", -1, &why);
    BSON_APPEND_UTF8(&why, "winningPlan", choice->winner.Describe().c_str());
    AppendNumber(&why, "cost", choice->winner.cost);
    BSON_APPEND_BOOL(&why, "fromPlanCache", choice->from_cache);
    bson_append_array_begin(&why, "rejectedPlans", -1, &others);
    for (size_t i = 0; i < choice->rejected.size(); ++i) {
      bson_t one;
      std::string key = std::to_string(i);
      bson_append_document_begin(&others, key.c_str(), -1, &one);
      BSON_APPEND_UTF8(&one, "plan", choice->rejected[i].Describe().c_str());
      AppendNumber(&one, "cost", choice->rejected[i].cost);
      bson_append_document_end(&others, &one);
    }
    bson_append_array_end(&why, &others);
    bson_append_document_end(out.mutable_get(), &why);
  }
  return out;
}

}  // namespace tigerdoc::engine
