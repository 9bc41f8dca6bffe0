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
// update (MongoDB's time-series rule before arbitrary updates): a multi
// update whose filter names only the metaField and whose $set / $unset
// change only the metaField. Each matching bucket is removed and its
// measurements, updated, are stored again through the buckets collection's
// hook (into the buckets of their new meta value), in one write unit.
// Other updates and findAndModify are refused (NotImplemented, saying what
// works).

#include <string>

#include "engine/agg/timeseries/bucket_format.h"
#include "engine/agg/timeseries/bucket_pushdown.h"
#include "engine/agg/timeseries/timeseries_config.h"
#include "engine/command_expressions.h"
#include "engine/engine.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/plan_executor.h"
#include "engine/update/update_driver.h"
#include "engine/write/collection_writer.h"
#include "engine/write/document_rules.h"
#include "engine/write/write_unit.h"

namespace tigerdoc::engine {
namespace {

bool IsMetaPath(std::string_view path, const std::optional<std::string>& meta) {
  return meta && (path == *meta || (path.size() > meta->size() && path.substr(0, meta->size()) == *meta &&
                                    path[meta->size()] == '.'));
}

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

Status NotMetaOnly(std::string_view what) {
  return Status(ErrorCode::kNotImplemented,
                "tigerdoc updates a time-series collection only with multi: true, a filter on the "
                "metaField alone and $set / $unset of the metaField (" + std::string(what) + ")");
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
                                                    const UpdateStatement& statement) {
  ASSIGN_OR_RETURN(agg::TimeseriesConfig config, ConfigOf(view));
  if (!statement.multi) return NotMetaOnly("this update has multi: false");
  if (statement.upsert) return NotMetaOnly("this update has upsert: true");
  if (statement.update_is_pipeline) return NotMetaOnly("this update is a pipeline");
  bson_iter_t it;
  bson_iter_init(&it, statement.query.get());
  while (bson_iter_next(&it)) {
    if (!IsMetaPath(bson_iter_key(&it), config.meta_field)) {
      return NotMetaOnly("the filter names '" + std::string(bson_iter_key(&it)) + "'");
    }
  }
  bson_iter_init(&it, statement.update.get());
  while (bson_iter_next(&it)) {
    const std::string_view op = bson_iter_key(&it);
    if ((op != "$set" && op != "$unset") || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
      return NotMetaOnly("the update uses '" + std::string(op) + "'");
    }
    bson_iter_t field;
    bson_iter_recurse(&it, &field);
    while (bson_iter_next(&field)) {
      if (!IsMetaPath(bson_iter_key(&field), config.meta_field)) {
        return NotMetaOnly("the update changes '" + std::string(bson_iter_key(&field)) + "'");
      }
    }
  }
  ASSIGN_OR_RETURN(CommandExpressions expressions, CommandExpressions::Make(view.db, statement.let.get()));
  ASSIGN_OR_RETURN(auto matcher, query::Matcher::Parse(statement.query.get(), expressions.parser.get()));
  ASSIGN_OR_RETURN(update::UpdateDriver driver,
                   ParseUpdateDriver(statement.update, false, statement.array_filters, statement.constants,
                                     expressions));
  UpdateResult result;
  std::shared_ptr<catalog::CollectionEntry> buckets = catalog_->Lookup(Namespace(view.db, view.view_on));
  if (!buckets) return result;
  storage::Session session = storage_->NewSession();
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> ids,
                   BucketIds(session, buckets, BucketFilterOf(view, statement.query.get()), Planner()));
  for (const bson::BsonDoc& id : ids) {
    int64_t matched = 0, modified = 0;
    CollectionWriter writer(*catalog_, *buckets);
    RETURN_IF_ERROR(RunWriteUnit(session, [&]() -> Status {
      matched = modified = 0;
      bson_iter_t id_it;
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> bucket, buckets->store->FindById(session, IdValue(id, &id_it)));
      if (!bucket) return Status::OK();
      ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> rows,
                       agg::UnpackBucket(bucket->get(), config.time_field, config.meta_field));
      // The filter names only the meta value, which every row shares.
      if (rows.empty() || !matcher->Matches(rows[0].get())) return matcher->EvaluationError();
      std::vector<bson::BsonDoc> updated;
      for (const bson::BsonDoc& row : rows) {
        ASSIGN_OR_RETURN(update::ApplyResult applied, driver.Apply(row.get(), false));
        modified += applied.modified ? 1 : 0;
        updated.push_back(std::move(applied.doc));
      }
      matched = static_cast<int64_t>(rows.size());
      if (modified == 0) return Status::OK();
      RETURN_IF_ERROR(writer.Remove(session, bucket->get()));
      std::vector<const bson_t*> docs;
      for (const bson::BsonDoc& doc : updated) docs.push_back(doc.get());
      return writer.InsertRouted(session, docs);
    }));
    result.matched += matched;
    result.modified += modified;
  }
  return result;
}

}  // namespace tigerdoc::engine
