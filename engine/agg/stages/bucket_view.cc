// $_internalBucketView: {timeField, [metaField], bucketMaxSpanSeconds,
// stats: [...]}: each bucket of a time-series collection as the reference
// article's bucket document (the `bucket.view` of patterns/README.md):
//
//   { _id: <bucket _id>, <metaField>: <meta>, bucketDate: <window start>,
//     bucketEndDate: <window start + span>,
//     measurements: [ {<timeField>, <fields>...}, ... ],        // no meta, no _id
//     stats: { count, <f>Min, <f>Max, <f>Avg, ... } }          // per `stats` field
//
// The statistics are read from what each insert maintained in the bucket
// (tigerdocStats, bucket_format.h); avg is that sum over that count. A
// field without numeric values in the bucket has null min, max and avg.

#include <cstring>

#include "engine/agg/stage_registry.h"
#include "engine/agg/stages/stage_util.h"
#include "engine/agg/timeseries/bucket_format.h"
#include "engine/agg/timeseries/unpack_spec.h"

namespace tigerdoc::agg {
namespace {

void AppendStats(const bson_t* bucket, const UnpackSpec& spec, int64_t count, bson_t* out) {
  bson_t stats;
  bson_append_document_begin(out, "stats", -1, &stats);
  BSON_APPEND_INT64(&stats, "count", count);
  bson_t kept, fields;
  const bool has_fields = bson::SubDocumentAt(bucket, kBucketStatsField, &kept) && bson::SubDocumentAt(&kept, "fields", &fields);
  for (const std::string& name : spec.stats) {
    bson_t one;
    bson_iter_t n, sum, min, max;
    const bool has = has_fields && bson::SubDocumentAt(&fields, name.c_str(), &one) &&
                     bson_iter_init_find(&n, &one, "n") && bson_iter_as_int64(&n) > 0 &&
                     bson_iter_init_find(&sum, &one, "sum") &&
                     bson_iter_init_find(&min, &one, "min") && bson_iter_init_find(&max, &one, "max");
    const std::string lo = name + "Min", hi = name + "Max", avg = name + "Avg";
    if (has) {
      bson_append_iter(&stats, lo.c_str(), -1, &min);
      bson_append_iter(&stats, hi.c_str(), -1, &max);
      BSON_APPEND_DOUBLE(&stats, avg.c_str(),
                         bson_iter_as_double(&sum) / static_cast<double>(bson_iter_as_int64(&n)));
    } else {
      BSON_APPEND_NULL(&stats, lo.c_str());
      BSON_APPEND_NULL(&stats, hi.c_str());
      BSON_APPEND_NULL(&stats, avg.c_str());
    }
  }
  bson_append_document_end(out, &stats);
}

StatusWith<bson::BsonDoc> ViewOf(const bson_t* bucket, const UnpackSpec& spec) {
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> rows, UnpackBucket(bucket, spec.time_field, std::nullopt));
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  bson_iter_t it;
  if (bson_iter_init_find(&it, bucket, "_id")) bson_append_iter(doc, "_id", 3, &it);
  if (spec.meta_field && bson_iter_init_find(&it, bucket, "meta")) {
    bson_append_iter(doc, spec.meta_field->c_str(), -1, &it);
  }
  bson_t control, min;
  int64_t start = 0;
  if (bson::SubDocumentAt(bucket, "control", &control) && bson::SubDocumentAt(&control, "min", &min) &&
      bson_iter_init_find(&it, &min, spec.time_field.c_str()) && BSON_ITER_HOLDS_DATE_TIME(&it)) {
    start = bson_iter_date_time(&it);
  }
  BSON_APPEND_DATE_TIME(doc, "bucketDate", start);
  BSON_APPEND_DATE_TIME(doc, "bucketEndDate", start + spec.bucket_max_span_seconds * 1000);
  bson_t measurements;
  bson_append_array_begin(doc, "measurements", -1, &measurements);
  for (size_t i = 0; i < rows.size(); ++i) {
    bson_t m;
    bson_append_document_begin(&measurements, std::to_string(i).c_str(), -1, &m);
    bson_iter_t f;
    bson_iter_init(&f, rows[i].get());
    while (bson_iter_next(&f)) {
      if (std::strcmp(bson_iter_key(&f), "_id") == 0) continue;
      bson_append_iter(&m, bson_iter_key(&f), -1, &f);
    }
    bson_append_document_end(&measurements, &m);
  }
  bson_append_array_end(doc, &measurements);
  AppendStats(bucket, spec, static_cast<int64_t>(rows.size()), doc);
  return out;
}

}  // namespace

StatusWith<StageSpecPtr> ParseBucketViewStage(const bson_iter_t* spec, const ExpressionContext&) {
  ASSIGN_OR_RETURN(UnpackSpec parsed, UnpackSpec::Parse("$_internalBucketView", spec, true));
  auto shared = std::make_shared<const UnpackSpec>(std::move(parsed));
  return MakeSpec("$_internalBucketView",
                  [shared](StagePtr input, const ExpressionContext* ctx) -> StatusWith<StagePtr> {
                    return MakeMapStage(std::move(input), ctx,
                                        [shared](bson::BsonDoc bucket, Variables*)
                                            -> StatusWith<std::optional<bson::BsonDoc>> {
                                          ASSIGN_OR_RETURN(bson::BsonDoc view,
                                                           ViewOf(bucket.get(), *shared));
                                          return std::optional<bson::BsonDoc>(std::move(view));
                                        });
                  });
}

}  // namespace tigerdoc::agg
