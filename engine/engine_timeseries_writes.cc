// Engine: deletes and updates of a time-series collection's measurements.
//
// delete (any filter, deleteOne or deleteMany): the buckets the filter can
// touch (the bucket filter of bucket_pushdown.h) are visited one by one,
// each in its own write unit: its measurements are unpacked and matched;
// a bucket whose measurements all match is removed, one where some match
// is rebuilt from the others (control min/max and the statistics
// recomputed from what stays), so the result is exact and the statistics
// stay exact.
//
// update (any filter and update, updateOne / updateMany / upsert, as
// MongoDB 7's arbitrary time-series updates): a bucket holding a
// measurement the update changes is removed and its measurements, the
// updated ones included, are stored again through the buckets collection's
// hook, in one write unit: each lands in the bucket of its (maybe new) time
// and meta value, control and statistics recomputed. A measurement is
// matched at most once per statement (by _id) although rewritten buckets
// may land in buckets visited later.
//
// findAndModify: the first measurement in `sort` order that the query
// matches (an aggregation on the collection), then a deleteOne / updateOne
// pinned to it by _id (query AND {_id}); when it changed in between, look
// again, as the engine's findAndModify does.

#include <set>
#include <string>

#include "engine/agg/timeseries/bucket_format.h"
#include "engine/agg/timeseries/bucket_pushdown.h"
#include "engine/agg/timeseries/timeseries_config.h"
#include "engine/command_expressions.h"
#include "engine/engine.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/plan_executor.h"
#include "engine/query/projection.h"
#include "engine/update/update_driver.h"
#include "engine/write/collection_writer.h"
#include "engine/write/document_rules.h"
#include "engine/write/write_unit.h"

namespace tigerdoc::engine {
namespace {

// The filter on buckets that every bucket holding a match of `filter`
// passes (empty: all buckets).
bson::BsonDoc BucketFilterOf(const catalog::ViewDefinition& view, const bson_t* filter) {
  bson::BsonDoc pipeline;
  bson_iter_t it;
  bson_iter_init(&it, view.pipeline.get());
  if (bson_iter_next(&it)) bson_append_iter(pipeline.mutable_get(), "0", 1, &it);
  bson_t stage;
  bson_append_document_begin(pipeline.mutable_get(), "1", 1, &stage);
  BSON_APPEND_DOCUMENT(&stage, "$match", filter);
  bson_append_document_end(pipeline.mutable_get(), &stage);
  bson::BsonDoc rewritten = agg::PushDownBucketFilters(pipeline.get());
  bson::BsonDoc out;
  if (bson_iter_init(&it, rewritten.get()) && bson_iter_find_descendant(&it, "0.$match", &it) &&
      BSON_ITER_HOLDS_DOCUMENT(&it)) {
    bson_t doc = bson::SubDocumentView(&it);
    out = bson::BsonDoc::CopyOf(&doc);
  }
  return out;
}

// The _ids of the buckets passing `bucket_filter`.
StatusWith<std::vector<bson::BsonDoc>> BucketIds(storage::Session& session,
                                                 std::shared_ptr<catalog::CollectionEntry> buckets,
                                                 const bson::BsonDoc& bucket_filter,
                                                 const query::PlannerContext& planner) {
  query::FindSpec spec;
  spec.filter = bucket_filter.Copy();
  BSON_APPEND_INT32(spec.projection.mutable_get(), "_id", 1);
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(std::move(buckets), std::move(spec), planner));
  std::vector<bson::BsonDoc> ids;
  bool exhausted = false;
  while (!exhausted) {
    std::vector<bson::BsonDoc> batch;
    RETURN_IF_ERROR(exec->FillBatch(session, 1000, 16 * 1024 * 1024, &batch, &exhausted));
    for (const bson::BsonDoc& doc : batch) ids.push_back(IdOf(doc.get()));
  }
  return ids;
}

const bson_value_t* IdValue(const bson::BsonDoc& one, bson_iter_t* it) {
  bson_iter_init(it, one.get());
  bson_iter_next(it);
  return bson_iter_value(it);
}

StatusWith<agg::TimeseriesConfig> ConfigOf(const catalog::ViewDefinition& view) {
  return agg::TimeseriesConfig::FromCanonical(view.timeseries.get());
}

}  // namespace

StatusWith<DeleteResult> Engine::DeleteMeasurements(const catalog::ViewDefinition& view,
                                                    const DeleteStatement& statement) {
  ASSIGN_OR_RETURN(agg::TimeseriesConfig config, ConfigOf(view));
  ASSIGN_OR_RETURN(CommandExpressions expressions, CommandExpressions::Make(view.db, statement.let.get()));
  ASSIGN_OR_RETURN(auto matcher, query::Matcher::Parse(statement.query.get(), expressions.parser.get()));
  DeleteResult result;
  std::shared_ptr<catalog::CollectionEntry> buckets = catalog_->Lookup(Namespace(view.db, view.view_on));
  if (!buckets) return result;
  storage::Session session = storage_->NewSession();
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> ids,
                   BucketIds(session, buckets, BucketFilterOf(view, statement.query.get()), Planner()));
  for (const bson::BsonDoc& id : ids) {
    if (statement.limit == 1 && result.deleted > 0) break;
    int64_t deleted = 0;
    CollectionWriter writer(*catalog_, *buckets);
    RETURN_IF_ERROR(RunWriteUnit(session, [&]() -> Status {
      deleted = 0;
      bson_iter_t it;
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> bucket, buckets->store->FindById(session, IdValue(id, &it)));
      if (!bucket) return Status::OK();
      ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> rows,
                       agg::UnpackBucket(bucket->get(), config.time_field, config.meta_field));
      std::vector<const bson::BsonDoc*> kept;
      for (const bson::BsonDoc& row : rows) {
        const bool remove = (statement.limit != 1 || deleted == 0) && matcher->Matches(row.get());
        if (remove) {
          ++deleted;
        } else {
          kept.push_back(&row);
        }
      }
      RETURN_IF_ERROR(matcher->EvaluationError());
      if (deleted == 0) return Status::OK();
      if (kept.empty()) return writer.Remove(session, bucket->get());
      ASSIGN_OR_RETURN(agg::BucketBuilder old, agg::BucketBuilder::FromBucket(config, bucket->get()));
      bson_iter_t oid_it, start, meta;
      bson_iter_init_find(&oid_it, bucket->get(), "_id");
      bson_oid_t oid;
      bson_oid_copy(bson_iter_oid(&oid_it), &oid);
      bson_iter_init(&start, bucket->get());
      const std::string min_time = "control.min." + config.time_field;
      if (!bson_iter_find_descendant(&start, min_time.c_str(), &start)) {
        return Status(ErrorCode::kFailedToParse, "not a time-series bucket: no " + min_time);
      }
      const bool has_meta = bson_iter_init_find(&meta, bucket->get(), "meta");
      agg::BucketBuilder rebuilt(config, oid, bson_iter_date_time(&start), has_meta ? &meta : nullptr);
      for (const bson::BsonDoc* row : kept) rebuilt.Append(row->get());
      bson::BsonDoc replacement = rebuilt.Build();
      return writer.Update(session, bucket->get(), replacement.get());
    }));
    result.deleted += deleted;
  }
  return result;
}

StatusWith<UpdateResult> Engine::UpdateMeasurements(const catalog::ViewDefinition& view,
                                                    const UpdateStatement& statement,
                                                    std::optional<bson::BsonDoc>* first_after) {
  ASSIGN_OR_RETURN(agg::TimeseriesConfig config, ConfigOf(view));
  ASSIGN_OR_RETURN(CommandExpressions expressions, CommandExpressions::Make(view.db, statement.let.get()));
  ASSIGN_OR_RETURN(auto matcher, query::Matcher::Parse(statement.query.get(), expressions.parser.get()));
  ASSIGN_OR_RETURN(update::UpdateDriver driver,
                   ParseUpdateDriver(statement.update, statement.update_is_pipeline, statement.array_filters,
                                     statement.constants, expressions));
  if (statement.multi && driver.is_replacement()) {
    return Status(ErrorCode::kFailedToParse, "multi update is not supported for replacement-style update");
  }
  UpdateResult result;
  std::shared_ptr<catalog::CollectionEntry> buckets = catalog_->Lookup(Namespace(view.db, view.view_on));
  if (!buckets) return result;
  storage::Session session = storage_->NewSession();
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> ids,
                   BucketIds(session, buckets, BucketFilterOf(view, statement.query.get()), Planner()));
  // Measurements this statement already matched, by _id: a rewritten
  // bucket's measurements may land in a bucket visited later.
  std::set<std::string> done;
  for (const bson::BsonDoc& id : ids) {
    if (!statement.multi && result.matched > 0) break;
    int64_t matched = 0, modified = 0;
    std::vector<std::string> matched_ids;
    std::optional<bson::BsonDoc> after;  // the first matched measurement as updated
    CollectionWriter writer(*catalog_, *buckets);
    if (statement.bypass_document_validation) writer.BypassDocumentValidation();
    RETURN_IF_ERROR(RunWriteUnit(session, [&]() -> Status {
      matched = modified = 0;
      matched_ids.clear();
      after.reset();
      bson_iter_t id_it;
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> bucket, buckets->store->FindById(session, IdValue(id, &id_it)));
      if (!bucket) return Status::OK();
      ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> rows,
                       agg::UnpackBucket(bucket->get(), config.time_field, config.meta_field));
      std::vector<bson::BsonDoc> rewritten;
      for (bson::BsonDoc& row : rows) {
        const std::string row_id(IdOf(row.get()).bytes());
        const bool wanted = (statement.multi || matched == 0) && !done.count(row_id) &&
                            matcher->Matches(row.get());
        if (!wanted) {
          rewritten.push_back(std::move(row));
          continue;
        }
        ++matched;
        matched_ids.push_back(row_id);
        ASSIGN_OR_RETURN(update::ApplyResult applied, driver.Apply(row.get(), false));
        if (applied.modified) {
          ++modified;
          // The measurement keeps its _id (a replacement without one too).
          ASSIGN_OR_RETURN(bson::BsonDoc with_id, WithIdFirst(applied.doc.get()));
          if (IdOf(with_id.get()).bytes() != IdOf(row.get()).bytes()) {
            return Status(ErrorCode::kImmutableField,
                          "Performing an update on the path '_id' would modify the immutable field '_id'");
          }
          // Returned in the field order the measurement had (_id not moved first).
          if (!after) {
            bson_iter_t has_id;
            after = bson_iter_init_find(&has_id, applied.doc.get(), "_id") ? applied.doc.Copy() : with_id.Copy();
          }
          rewritten.push_back(std::move(with_id));
        } else {
          if (!after) after = row.Copy();
          rewritten.push_back(std::move(row));
        }
      }
      RETURN_IF_ERROR(matcher->EvaluationError());
      if (modified == 0) return Status::OK();
      // The bucket's measurements are stored again: the updated ones where
      // their (maybe new) time and meta value put them.
      RETURN_IF_ERROR(writer.Remove(session, bucket->get()));
      std::vector<const bson_t*> docs;
      for (const bson::BsonDoc& doc : rewritten) docs.push_back(doc.get());
      return writer.InsertRouted(session, docs);
    }));
    done.insert(matched_ids.begin(), matched_ids.end());
    if (first_after && !*first_after && after) *first_after = std::move(after);
    result.matched += matched;
    result.modified += modified;
  }
  if (result.matched > 0 || !statement.upsert) return result;
  // Upsert: the filter's equalities with the update applied, inserted as a
  // measurement.
  ASSIGN_OR_RETURN(bson::BsonDoc seed, update::BuildUpsertSeed(*matcher));
  ASSIGN_OR_RETURN(update::ApplyResult applied,
                   driver.Apply(driver.is_replacement() ? bson::BsonDoc().get() : seed.get(), true));
  ASSIGN_OR_RETURN(bson::BsonDoc doc, WithIdFirst(applied.doc.get()));
  bson::BsonDoc upserted_id = IdOf(doc.get());
  if (first_after) *first_after = doc.Copy();
  const std::string_view one[] = {doc.bytes()};
  ASSIGN_OR_RETURN(std::vector<Status> inserted, InsertMeasurements(view, one, true));
  if (!inserted.empty()) RETURN_IF_ERROR(inserted[0]);
  result.matched = 1;
  result.upserted_id = std::move(upserted_id);
  return result;
}

StatusWith<FindAndModifyResult> Engine::FindAndModifyMeasurements(const catalog::ViewDefinition& view,
                                                                  const FindAndModifyParams& params) {
  ASSIGN_OR_RETURN(CommandExpressions expressions, CommandExpressions::Make(view.db, params.let.get()));
  std::optional<query::Projection> projection;
  if (!params.fields.empty()) {
    ASSIGN_OR_RETURN(query::Projection parsed,
                     query::Projection::Parse(params.fields.get(), params.query.get(), expressions.parser.get()));
    projection.emplace(std::move(parsed));
  }
  auto shaped = [&](const bson::BsonDoc& doc) -> StatusWith<bson::BsonDoc> {
    if (!projection) return doc.Copy();
    return projection->Apply(doc.get(), nullptr);
  };
  FindAndModifyResult result;
  for (int attempt = 0; attempt < 100; ++attempt) {
    AggregateParams find;
    find.db = view.db;
    find.coll = view.name;
    find.let = params.let.Copy();
    bson_t stage;
    uint32_t index = 0;
    auto append_stage = [&](const char* name, const bson_t* value) {
      bson_append_document_begin(find.pipeline.mutable_get(), std::to_string(index++).c_str(), -1, &stage);
      BSON_APPEND_DOCUMENT(&stage, name, value);
      bson_append_document_end(find.pipeline.mutable_get(), &stage);
    };
    append_stage("$match", params.query.get());
    if (!params.sort.empty()) append_stage("$sort", params.sort.get());
    bson_append_document_begin(find.pipeline.mutable_get(), std::to_string(index++).c_str(), -1, &stage);
    BSON_APPEND_INT32(&stage, "$limit", 1);
    bson_append_document_end(find.pipeline.mutable_get(), &stage);
    ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> first, AggregateAll(std::move(find)));
    if (first.empty()) break;
    // The query, pinned to that measurement.
    bson::BsonDoc pinned;
    bson_t clauses, clause;
    bson_append_array_begin(pinned.mutable_get(), "$and", 4, &clauses);
    BSON_APPEND_DOCUMENT(&clauses, "0", params.query.get());
    bson_append_document_begin(&clauses, "1", 1, &clause);
    bson_iter_t id;
    if (bson_iter_init_find(&id, first[0].get(), "_id")) bson_append_iter(&clause, "_id", 3, &id);
    bson_append_document_end(&clauses, &clause);
    bson_append_array_end(pinned.mutable_get(), &clauses);
    if (params.remove) {
      DeleteStatement remove;
      remove.query = std::move(pinned);
      remove.limit = 1;
      remove.let = params.let.Copy();
      ASSIGN_OR_RETURN(DeleteResult deleted, DeleteMeasurements(view, remove));
      if (deleted.deleted == 0) continue;
      result.n = 1;
      ASSIGN_OR_RETURN(result.value, shaped(first[0]));
      return result;
    }
    UpdateStatement update;
    update.query = std::move(pinned);
    update.update = params.update->Copy();
    update.update_is_pipeline = params.update_is_pipeline;
    if (params.array_filters) update.array_filters = params.array_filters->Copy();
    update.let = params.let.Copy();
    update.bypass_document_validation = params.bypass_document_validation;
    std::optional<bson::BsonDoc> after;
    ASSIGN_OR_RETURN(UpdateResult updated, UpdateMeasurements(view, update, &after));
    if (updated.matched == 0) continue;
    result.n = 1;
    result.updated_existing = true;
    ASSIGN_OR_RETURN(result.value, shaped(params.return_new && after ? *after : first[0]));
    return result;
  }
  if (params.remove || !params.upsert) return result;
  UpdateStatement upsert;
  upsert.query = params.query.Copy();
  upsert.update = params.update->Copy();
  upsert.update_is_pipeline = params.update_is_pipeline;
  upsert.upsert = true;
  upsert.let = params.let.Copy();
  upsert.bypass_document_validation = params.bypass_document_validation;
  std::optional<bson::BsonDoc> inserted;
  ASSIGN_OR_RETURN(UpdateResult upserted, UpdateMeasurements(view, upsert, &inserted));
  result.n = 1;
  result.upserted_id = std::move(upserted.upserted_id);
  if (params.return_new && inserted) {
    ASSIGN_OR_RETURN(result.value, shaped(*inserted));
  }
  return result;
}

}  // namespace tigerdoc::engine
