// BucketHook: measurements into buckets (contract in the header).

#include "patterns/bucket/bucket_hook.h"

#include <map>
#include <optional>
#include <string>

#include "engine/agg/timeseries/bucket_format.h"
#include "engine/write/collection_writer.h"

namespace tigerdoc::patterns::bucket {
namespace {

// The meta value as bytes that name it ({"": value}); empty without one.
std::string MetaKey(const bson_t* doc, const std::optional<std::string>& meta_field,
                    bson_iter_t* meta, bool* has_meta) {
  *has_meta = meta_field && bson_iter_init_find_w_len(meta, doc, meta_field->data(),
                                                      static_cast<int>(meta_field->size()));
  if (!*has_meta) return std::string();
  bson::BsonDoc one;
  bson_append_iter(one.mutable_get(), "", 0, meta);
  return std::string(one.bytes());
}

// The measurements of one call bound for one window and meta value.
struct Group {
  int64_t window_start_ms = 0;
  std::string meta_key;
  std::vector<const bson_t*> docs;
};

}  // namespace

Status BucketHook::InsertRouted(engine::HookContext& ctx, engine::CollectionWriter& writer,
                                const std::vector<const bson_t*>& docs) {
  std::vector<Group> groups;
  std::map<std::pair<int64_t, std::string>, size_t> group_of;
  for (const bson_t* doc : docs) {
    bson_iter_t time;
    if (!bson_iter_init_find_w_len(&time, doc, config_.time_field.data(),
                                   static_cast<int>(config_.time_field.size())) ||
        !BSON_ITER_HOLDS_DATE_TIME(&time)) {
      return Status(ErrorCode::kBadValue, "'" + config_.time_field +
                                              "' must be present and contain a valid BSON UTC "
                                              "datetime value");
    }
    bson_iter_t meta;
    bool has_meta = false;
    std::string meta_key = MetaKey(doc, config_.meta_field, &meta, &has_meta);
    const int64_t window = config_.WindowStartMillis(bson_iter_date_time(&time));
    auto [it, added] = group_of.emplace(std::make_pair(window, meta_key), groups.size());
    if (added) groups.push_back(Group{window, std::move(meta_key), {}});
    groups[it->second].docs.push_back(doc);
  }

  storage::Session& session = ctx.session();
  const catalog::CollectionEntry& coll = writer.collection();
  for (const Group& group : groups) {
    size_t next = 0;
    for (uint32_t seq = 0; next < group.docs.size(); ++seq) {
      if (seq > 0xFFFFFF) {
        return Status(ErrorCode::kBadValue, "more than 16777215 buckets in one time window of " +
                                                coll.metadata.ns);
      }
      ASSIGN_OR_RETURN(bson_oid_t oid, agg::BucketId(group.window_start_ms, group.meta_key, seq));
      bson_value_t id;
      id.value_type = BSON_TYPE_OID;
      bson_oid_copy(&oid, &id.value.v_oid);
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> stored, coll.store->FindById(session, &id));
      std::optional<agg::BucketBuilder> builder;
      if (stored) {
        bson_iter_t meta;
        bool has_meta = false;
        if (MetaKey(stored->get(), std::optional<std::string>("meta"), &meta, &has_meta) !=
            group.meta_key) {
          continue;  // another meta value with the same hash
        }
        ASSIGN_OR_RETURN(agg::BucketBuilder existing,
                         agg::BucketBuilder::FromBucket(config_, stored->get()));
        if (!existing.Fits(group.docs[next])) continue;  // closed: full
        builder.emplace(std::move(existing));
      } else {
        bson_iter_t meta;
        bool has_meta = false;
        MetaKey(group.docs[next], config_.meta_field, &meta, &has_meta);
        builder.emplace(config_, oid, group.window_start_ms, has_meta ? &meta : nullptr);
      }
      while (next < group.docs.size() && builder->Fits(group.docs[next])) {
        builder->Append(group.docs[next++]);
      }
      bson::BsonDoc bucket = builder->Build();
      Status written = stored ? writer.Update(session, stored->get(), bucket.get())
                              : writer.Insert(session, bucket.get());
      // Another writer made this bucket after our snapshot: retry the unit.
      if (written.code() == ErrorCode::kDuplicateKey) {
        return Status(ErrorCode::kWriteConflict, "bucket created concurrently");
      }
      RETURN_IF_ERROR(written);
    }
  }
  return Status::OK();
}

namespace {

// The tigerdocStats sub-document of `bucket` as bytes (empty when absent).
std::string StatsBytes(const bson_t* bucket) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, bucket, agg::kBucketStatsField) || !BSON_ITER_HOLDS_DOCUMENT(&it)) {
    return std::string();
  }
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(&it, &len, &data);
  return std::string(reinterpret_cast<const char*>(data), len);
}

}  // namespace

Status BucketHook::Validate(storage::Session& session, const catalog::CollectionEntry& coll,
                            std::vector<std::string>* problems) {
  return coll.store->ForEachDocument(session, [&](int, const bson_t* bucket) -> Status {
    bson_iter_t id;
    const std::string name = bson_iter_init_find(&id, bucket, "_id") && BSON_ITER_HOLDS_OID(&id)
                                 ? [&] {
                                     char hex[25];
                                     bson_oid_to_string(bson_iter_oid(&id), hex);
                                     return std::string(hex);
                                   }()
                                 : std::string("?");
    auto problem = [&](const std::string& what) {
      problems->push_back("bucket " + name + " of " + coll.metadata.ns + ": " + what);
      return Status::OK();
    };
    StatusWith<std::vector<bson::BsonDoc>> rows =
        agg::UnpackBucket(bucket, config_.time_field, config_.meta_field);
    StatusWith<agg::BucketBuilder> stored = agg::BucketBuilder::FromBucket(config_, bucket);
    if (!rows.ok()) return problem(rows.status().reason());
    if (!stored.ok()) return problem(stored.status().reason());
    if (static_cast<int64_t>(rows.value().size()) > config_.max_count) {
      return problem(std::to_string(rows.value().size()) + " measurements, over maxCount " +
                     std::to_string(config_.max_count));
    }
    // The same measurements appended in row order give the statistics an
    // exact bookkeeping must have kept.
    bson_iter_t meta, start;
    const bool has_meta = bson_iter_init_find(&meta, bucket, "meta");
    bson_iter_init(&start, bucket);
    const std::string min_time = "control.min." + config_.time_field;
    bson_iter_find_descendant(&start, min_time.c_str(), &start);
    bson_oid_t oid;
    bson_oid_copy(bson_iter_oid(&id), &oid);
    agg::BucketBuilder recomputed(config_, oid, bson_iter_date_time(&start), has_meta ? &meta : nullptr);
    for (const bson::BsonDoc& row : rows.value()) recomputed.Append(row.get());
    if (StatsBytes(recomputed.Build().get()) != StatsBytes(bucket)) {
      return problem("kept statistics differ from its " + std::to_string(rows.value().size()) +
                     " measurements");
    }
    return Status::OK();
  });
}

void BucketHook::AppendExplain(const catalog::CollectionEntry& /*coll*/, bson_t* out) const {
  BSON_APPEND_UTF8(out, "timeField", config_.time_field.c_str());
  if (config_.meta_field) BSON_APPEND_UTF8(out, "metaField", config_.meta_field->c_str());
  BSON_APPEND_INT64(out, "bucketMaxSpanSeconds", config_.bucket_max_span_seconds);
  BSON_APPEND_INT64(out, "maxCount", config_.max_count);
}

}  // namespace tigerdoc::patterns::bucket
