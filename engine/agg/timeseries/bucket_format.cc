// Bucket documents: building and unpacking (format in the header).

#include "engine/agg/timeseries/bucket_format.h"

#include <cstdlib>
#include <cstring>

#include "engine/bson/compare.h"

namespace tigerdoc::agg {
namespace {

// FNV-1a, 64 bits: stable across builds (bucket ids are on disk).
uint64_t StableHash(std::string_view bytes) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

bson::BsonDoc OneValue(const bson_iter_t* it) {
  bson::BsonDoc out;
  bson_append_iter(out.mutable_get(), "", 0, it);
  return out;
}

const bson_value_t* ValueOf(const bson::BsonDoc& one, bson_iter_t* it) {
  bson_iter_init(it, one.get());
  bson_iter_next(it);
  return bson_iter_value(it);
}

bool IsNumeric(const bson_iter_t* it) {
  return BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it) || BSON_ITER_HOLDS_DOUBLE(it);
}

Status NotABucket(std::string why) {
  return Status(ErrorCode::kFailedToParse, "not a time-series bucket: " + why);
}

}  // namespace

StatusWith<bson_oid_t> BucketId(int64_t window_start_ms, std::string_view meta_bytes, uint32_t seq) {
  const int64_t seconds = window_start_ms / 1000;
  if (window_start_ms < 0 || seconds > 0xFFFFFFFFLL) {
    return Status(ErrorCode::kBadValue,
                  "time-series measurements must have a time between 1970-01-01 and 2106-02-07 "
                  "(the range of an ObjectId's time)");
  }
  bson_oid_t oid;
  const uint32_t secs = static_cast<uint32_t>(seconds);
  oid.bytes[0] = static_cast<uint8_t>(secs >> 24);
  oid.bytes[1] = static_cast<uint8_t>(secs >> 16);
  oid.bytes[2] = static_cast<uint8_t>(secs >> 8);
  oid.bytes[3] = static_cast<uint8_t>(secs);
  const uint64_t h = StableHash(meta_bytes);
  for (int i = 0; i < 5; ++i) oid.bytes[4 + i] = static_cast<uint8_t>(h >> (8 * (4 - i)));
  oid.bytes[9] = static_cast<uint8_t>(seq >> 16);
  oid.bytes[10] = static_cast<uint8_t>(seq >> 8);
  oid.bytes[11] = static_cast<uint8_t>(seq);
  return oid;
}

BucketBuilder::BucketBuilder(const TimeseriesConfig& config, bson_oid_t id, int64_t window_start_ms,
                             const bson_iter_t* meta)
    : config_(&config), id_(id), window_start_ms_(window_start_ms) {
  if (meta) {
    bson::BsonDoc m;
    bson_append_iter(m.mutable_get(), "meta", 4, meta);
    meta_ = std::move(m);
  }
  for (const std::string& name : config.stats) stats_.push_back(FieldStats{name});
}

StatusWith<BucketBuilder> BucketBuilder::FromBucket(const TimeseriesConfig& config,
                                                    const bson_t* bucket) {
  BucketBuilder b(config);
  bson_iter_t it;
  if (!bson_iter_init_find(&it, bucket, "_id") || !BSON_ITER_HOLDS_OID(&it)) {
    return NotABucket("no ObjectId _id");
  }
  bson_oid_copy(bson_iter_oid(&it), &b.id_);
  bson_t control, min, max, data;
  if (!bson::SubDocumentAt(bucket, "control", &control) || !bson::SubDocumentAt(&control, "min", &min) ||
      !bson::SubDocumentAt(&control, "max", &max) || !bson::SubDocumentAt(bucket, "data", &data)) {
    return NotABucket("no control.min, control.max or data");
  }
  bson_iter_t t;
  if (!bson_iter_init_find(&t, &min, config.time_field.c_str()) || !BSON_ITER_HOLDS_DATE_TIME(&t)) {
    return NotABucket("control.min has no time");
  }
  b.window_start_ms_ = bson_iter_date_time(&t);
  if (bson_iter_init_find(&it, bucket, "meta")) {
    bson::BsonDoc m;
    bson_append_iter(m.mutable_get(), "meta", 4, &it);
    b.meta_ = std::move(m);
  }
  bson_iter_init(&it, &data);
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return NotABucket("a data column is not a document");
    Column c;
    c.name = bson_iter_key(&it);
    bson_t values = bson::SubDocumentView(&it);
    c.values = bson::BsonDoc::CopyOf(&values);
    bson_iter_t v;
    if (bson_iter_init_find(&v, &min, c.name.c_str())) c.min = OneValue(&v);
    if (bson_iter_init_find(&v, &max, c.name.c_str())) c.max = OneValue(&v);
    if (c.min.empty() || c.max.empty()) return NotABucket("no control min/max of " + c.name);
    b.bytes_ += ColumnBytes(c);
    if (c.name == config.time_field) b.count_ = bson_count_keys(&values);
    b.columns_.push_back(std::move(c));
  }
  for (const std::string& name : config.stats) b.stats_.push_back(FieldStats{name});
  bson_t stats, fields;
  if (bson::SubDocumentAt(bucket, kBucketStatsField, &stats) && bson::SubDocumentAt(&stats, "fields", &fields)) {
    for (FieldStats& s : b.stats_) {
      bson_t one;
      if (!bson::SubDocumentAt(&fields, s.name.c_str(), &one)) continue;
      bson_iter_t f;
      if (bson_iter_init_find(&f, &one, "n")) s.n = bson_iter_as_int64(&f);
      if (bson_iter_init_find(&f, &one, "sum")) s.sum = bson_iter_as_double(&f);
      if (s.n > 0 && bson_iter_init_find(&f, &one, "min")) s.min = OneValue(&f);
      if (s.n > 0 && bson_iter_init_find(&f, &one, "max")) s.max = OneValue(&f);
    }
  }
  return b;
}

BucketBuilder::Column& BucketBuilder::ColumnFor(std::string_view name) {
  for (Column& c : columns_) {
    if (c.name == name) return c;
  }
  columns_.push_back(Column{std::string(name)});
  return columns_.back();
}

const BucketBuilder::Column* BucketBuilder::FindColumn(std::string_view name) const {
  for (const Column& c : columns_) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

int64_t BucketBuilder::GrowthOf(const bson_t* measurement) const {
  // Per field: its cell in the data column, and how much control.min and
  // control.max grow when it becomes the least or greatest value.
  const int64_t row_key = static_cast<int64_t>(std::to_string(count_).size());
  int64_t growth = 0;
  bson_iter_t it;
  bson_iter_init(&it, measurement);
  while (bson_iter_next(&it)) {
    const std::string_view name = bson_iter_key(&it);
    if (config_->meta_field && name == *config_->meta_field) continue;
    const bson::BsonDoc one = OneValue(&it);  // {"": v}: 5 + 2 + value bytes
    const int64_t value_bytes = static_cast<int64_t>(one.size()) - 7;
    growth += 2 + row_key + value_bytes;
    const Column* c = FindColumn(name);
    if (c == nullptr) {
      growth += 2 * (2 + static_cast<int64_t>(name.size()) + value_bytes) + 16;  // + the column
      continue;
    }
    bson_iter_t cur;
    const bson_value_t* v = bson_iter_value(&it);
    if (bson::CompareValues(v, ValueOf(c->min, &cur)) < 0) {
      growth += static_cast<int64_t>(one.size()) - static_cast<int64_t>(c->min.size());
    }
    if (bson::CompareValues(v, ValueOf(c->max, &cur)) > 0) {
      growth += static_cast<int64_t>(one.size()) - static_cast<int64_t>(c->max.size());
    }
  }
  return growth;
}

int64_t BucketBuilder::ColumnBytes(const Column& c) {
  return static_cast<int64_t>(c.values.size() + c.min.size() + c.max.size() + 2 * c.name.size());
}

bool BucketBuilder::Fits(const bson_t* measurement) const {
  if (count_ == 0) return true;
  if (count_ >= config_->max_count) return false;
  return bytes_ + GrowthOf(measurement) <= kBucketMaxSizeBytes;
}

void BucketBuilder::Append(const bson_t* measurement) {
  const std::string row = std::to_string(count_);
  bson_iter_t it;
  bson_iter_init(&it, measurement);
  while (bson_iter_next(&it)) {
    const std::string_view name = bson_iter_key(&it);
    if (config_->meta_field && name == *config_->meta_field) continue;
    Column& c = ColumnFor(name);
    const int64_t before = c.values.empty() && c.min.empty() ? 0 : ColumnBytes(c);
    bson_append_iter(c.values.mutable_get(), row.c_str(), -1, &it);
    bson_iter_t cur;
    const bson_value_t* v = bson_iter_value(&it);
    if (name == config_->time_field) {
      // control.min of the time is the bucket's (rounded) start.
      if (c.min.empty()) {
        BSON_APPEND_DATE_TIME(c.min.mutable_get(), "", window_start_ms_);
      }
      if (c.max.empty() || bson::CompareValues(v, ValueOf(c.max, &cur)) > 0) c.max = OneValue(&it);
    } else {
      if (c.min.empty() || bson::CompareValues(v, ValueOf(c.min, &cur)) < 0) c.min = OneValue(&it);
      if (c.max.empty() || bson::CompareValues(v, ValueOf(c.max, &cur)) > 0) c.max = OneValue(&it);
    }
    bytes_ += ColumnBytes(c) - before;
    for (FieldStats& s : stats_) {
      if (s.name != name || !IsNumeric(&it)) continue;
      s.sum += bson_iter_as_double(&it);
      if (s.n == 0 || bson::CompareValues(v, ValueOf(s.min, &cur)) < 0) s.min = OneValue(&it);
      if (s.n == 0 || bson::CompareValues(v, ValueOf(s.max, &cur)) > 0) s.max = OneValue(&it);
      ++s.n;
    }
  }
  ++count_;
}

bson::BsonDoc BucketBuilder::Build() const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_OID(doc, "_id", &id_);
  bson_t control, min, max, data;
  bson_append_document_begin(doc, "control", -1, &control);
  BSON_APPEND_INT32(&control, "version", 1);
  bson_iter_t v;
  bson_append_document_begin(&control, "min", -1, &min);
  for (const Column& c : columns_) {
    bson_iter_init(&v, c.min.get());
    bson_iter_next(&v);
    bson_append_iter(&min, c.name.data(), static_cast<int>(c.name.size()), &v);
  }
  bson_append_document_end(&control, &min);
  bson_append_document_begin(&control, "max", -1, &max);
  for (const Column& c : columns_) {
    bson_iter_init(&v, c.max.get());
    bson_iter_next(&v);
    bson_append_iter(&max, c.name.data(), static_cast<int>(c.name.size()), &v);
  }
  bson_append_document_end(&control, &max);
  bson_append_document_end(doc, &control);
  if (meta_) bson_concat(doc, meta_->get());
  bson_append_document_begin(doc, "data", -1, &data);
  for (const Column& c : columns_) {
    BSON_APPEND_DOCUMENT(&data, c.name.c_str(), c.values.get());
  }
  bson_append_document_end(doc, &data);
  bson_t stats, fields;
  bson_append_document_begin(doc, kBucketStatsField, -1, &stats);
  BSON_APPEND_INT64(&stats, "count", count_);
  bson_append_document_begin(&stats, "fields", -1, &fields);
  for (const FieldStats& s : stats_) {
    bson_t one;
    bson_append_document_begin(&fields, s.name.c_str(), -1, &one);
    BSON_APPEND_INT64(&one, "n", s.n);
    BSON_APPEND_DOUBLE(&one, "sum", s.sum);
    if (s.n > 0) {
      bson_iter_init(&v, s.min.get());
      bson_iter_next(&v);
      bson_append_iter(&one, "min", 3, &v);
      bson_iter_init(&v, s.max.get());
      bson_iter_next(&v);
      bson_append_iter(&one, "max", 3, &v);
    }
    bson_append_document_end(&fields, &one);
  }
  bson_append_document_end(&stats, &fields);
  bson_append_document_end(doc, &stats);
  return out;
}

StatusWith<std::vector<bson::BsonDoc>> UnpackBucket(const bson_t* bucket,
                                                    const std::string& time_field,
                                                    const std::optional<std::string>& meta_field) {
  bson_t data;
  if (!bson::SubDocumentAt(bucket, "data", &data)) return NotABucket("no data");
  // Columns by their bytes (never a bson_t in a container: a copied
  // static bson_t points into the struct it was copied from).
  struct Cursor {
    std::string name;
    const uint8_t* data = nullptr;
    uint32_t len = 0;
    bson_iter_t it;
    bool more = false;
    int64_t row = -1;  // the row of the value `it` is on
    void Advance() {
      more = bson_iter_next(&it);
      row = more ? std::strtoll(bson_iter_key(&it), nullptr, 10) : -1;
    }
  };
  // The time column first (it has every row), then the others.
  std::vector<Cursor> cursors;
  bson_iter_t it;
  bson_iter_init(&it, &data);
  while (bson_iter_next(&it)) {
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return NotABucket("a data column is not a document");
    Cursor c;
    c.name = bson_iter_key(&it);
    bson_iter_document(&it, &c.len, &c.data);
    if (c.name == time_field) {
      cursors.insert(cursors.begin(), std::move(c));
    } else {
      cursors.push_back(std::move(c));
    }
  }
  for (Cursor& c : cursors) {
    bson_iter_init_from_data(&c.it, c.data, c.len);
    c.Advance();
  }
  bson_iter_t meta;
  const bool has_meta = meta_field && bson_iter_init_find(&meta, bucket, "meta");
  std::vector<bson::BsonDoc> out;
  if (cursors.empty() || cursors[0].name != time_field) return out;
  while (cursors[0].more) {
    const int64_t row = cursors[0].row;
    bson::BsonDoc m;
    bool first = true;
    for (Cursor& c : cursors) {
      // Rows are ascending in every column; a column skips rows that lack it.
      while (c.more && c.row < row) c.Advance();
      if (c.more && c.row == row) {
        bson_append_iter(m.mutable_get(), c.name.data(), static_cast<int>(c.name.size()), &c.it);
        c.Advance();
      }
      if (first && has_meta) {
        bson_append_iter(m.mutable_get(), meta_field->data(), static_cast<int>(meta_field->size()),
                         &meta);
      }
      first = false;
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace tigerdoc::agg
