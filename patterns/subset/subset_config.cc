#include "patterns/subset/subset_config.h"

#include <cmath>
#include <cstring>

#include "engine/bson/compare.h"
#include "engine/catalog/catalog.h"
#include "engine/query/projection.h"

namespace tigerdoc::patterns::subset {
namespace {

std::string FieldName(std::string_view command, std::string_view sub) {
  return "BSON field '" + std::string(command) + "." + kOption +
         (sub.empty() ? "" : "." + std::string(sub)) + "'";
}

Status WrongType(std::string_view command, std::string_view sub, const char* expected) {
  return Status(ErrorCode::kTypeMismatch,
                FieldName(command, sub) + " is the wrong type, expected " + expected);
}

bool IsNumber(const bson_iter_t* it) {
  return BSON_ITER_HOLDS_INT32(it) || BSON_ITER_HOLDS_INT64(it) || BSON_ITER_HOLDS_DOUBLE(it) ||
         BSON_ITER_HOLDS_DECIMAL128(it);
}

// One path is the other or a prefix of it at a dot ("a" and "a.b").
bool Overlap(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  return longer.compare(0, shorter.size(), shorter) == 0 &&
         (longer.size() == shorter.size() || longer[shorter.size()] == '.');
}

StatusWith<Counter> ParseCounter(std::string_view command, const std::string& path,
                                 const bson_iter_t* it) {
  const std::string where = "counters." + path;
  if (!BSON_ITER_HOLDS_DOCUMENT(it)) {
    return WrongType(command, where, "object such as {$sum: 1}, {$avg: \"$f\"}, {$countByValue: \"$f\"}");
  }
  Counter counter;
  counter.path = path;
  uint32_t len = 0;
  const uint8_t* data = nullptr;
  bson_iter_document(it, &len, &data);
  counter.spec = bson::BsonDoc::CopyOf(data, len);
  bson_iter_t op;
  bson_iter_init(&op, counter.spec.get());
  if (!bson_iter_next(&op) || bson_count_keys(counter.spec.get()) != 1) {
    return Status(ErrorCode::kFailedToParse,
                  FieldName(command, where) +
                      " must have exactly one accumulator: $sum, $avg or $countByValue");
  }
  const std::string name = bson_iter_key(&op);
  auto field_of = [&](const char* accumulator) -> StatusWith<std::string> {
    if (!BSON_ITER_HOLDS_UTF8(&op)) {
      return Status(ErrorCode::kFailedToParse, FieldName(command, where) + ": " + accumulator +
                                                   " takes a field path such as \"$rating\"");
    }
    std::string value = bson_iter_utf8(&op, nullptr);
    if (value.size() < 2 || value[0] != '$' || value[1] == '$') {
      return Status(ErrorCode::kFailedToParse, FieldName(command, where) + ": " + accumulator +
                                                   " takes a field path such as \"$rating\", got \"" +
                                                   value + "\"");
    }
    value.erase(0, 1);
    RETURN_IF_ERROR(CheckFieldPath(FieldName(command, where), value));
    return value;
  };
  if (name == "$sum") {
    if (IsNumber(&op)) {
      counter.kind = Counter::Kind::kSumConstant;
      if (BSON_ITER_HOLDS_INT32(&op) || BSON_ITER_HOLDS_INT64(&op)) {
        counter.int_constant = bson_iter_as_int64(&op);
      } else {
        const double d = BSON_ITER_HOLDS_DOUBLE(&op) ? bson_iter_double(&op) : 0;
        if (!BSON_ITER_HOLDS_DOUBLE(&op) || !std::isfinite(d)) {
          return Status(ErrorCode::kBadValue,
                        FieldName(command, where) + ": $sum takes a finite int, long or double");
        }
        if (d == std::trunc(d) && std::fabs(d) < 9.0e15) {
          counter.int_constant = static_cast<int64_t>(d);  // mongosh sends 1 as 1.0
        } else {
          counter.constant_is_double = true;
          counter.double_constant = d;
        }
      }
      return counter;
    }
    counter.kind = Counter::Kind::kSumField;
    ASSIGN_OR_RETURN(counter.field, field_of("$sum"));
    return counter;
  }
  if (name == "$avg") {
    counter.kind = Counter::Kind::kAvg;
    ASSIGN_OR_RETURN(counter.field, field_of("$avg"));
    return counter;
  }
  if (name == "$countByValue") {
    counter.kind = Counter::Kind::kCountByValue;
    ASSIGN_OR_RETURN(counter.field, field_of("$countByValue"));
    return counter;
  }
  return Status(ErrorCode::kFailedToParse,
                FieldName(command, where) + ": unknown accumulator '" + name +
                    "'; use $sum, $avg or $countByValue (exact under deletes)");
}

}  // namespace

std::string ValueBytes(const bson_t* doc, const std::string& path) {
  bson_iter_t root, it;
  if (!bson_iter_init(&root, doc) || !bson_iter_find_descendant(&root, path.c_str(), &it)) {
    return std::string();
  }
  bson::BsonDoc one;
  bson_append_iter(one.mutable_get(), "v", 1, &it);
  return std::string(one.bytes());
}

Status CheckFieldPath(const std::string& where, const std::string& path) {
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty() || part[0] == '$' || part.find('\0') != std::string::npos) {
      return Status(ErrorCode::kFailedToParse,
                    where + " must be a field path such as \"a.b\", got \"" + path + "\"");
    }
    if (dot == std::string::npos) return Status::OK();
    start = dot + 1;
  }
}

StatusWith<SubsetConfig> SubsetConfig::Parse(std::string_view command, const bson_iter_t* option,
                                             std::string_view child) {
  if (!BSON_ITER_HOLDS_DOCUMENT(option)) return WrongType(command, "", "object");
  SubsetConfig config;
  bool has_parent = false, has_local = false, has_as = false;
  bson_iter_t it;
  bson_iter_recurse(option, &it);
  auto path_of = [&](const std::string& key, std::string* out) -> Status {
    if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(command, key, "string");
    *out = bson_iter_utf8(&it, nullptr);
    return CheckFieldPath(FieldName(command, key), *out);
  };
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    if (key == "parent") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(command, key, "string");
      config.parent_ = bson_iter_utf8(&it, nullptr);
      Status valid = catalog::Catalog::ValidateCollectionName(config.parent_);
      if (!valid.ok()) {
        return Status(ErrorCode::kBadValue, FieldName(command, key) + ": " + valid.reason());
      }
      if (config.parent_ == child) {
        return Status(ErrorCode::kBadValue,
                      FieldName(command, key) + " must name another collection, not '" +
                          std::string(child) + "' itself");
      }
      has_parent = true;
    } else if (key == "localField") {
      RETURN_IF_ERROR(path_of(key, &config.local_field_));
      has_local = true;
    } else if (key == "foreignField") {
      RETURN_IF_ERROR(path_of(key, &config.foreign_field_));
    } else if (key == "as") {
      RETURN_IF_ERROR(path_of(key, &config.as_));
      has_as = true;
    } else if (key == "sort") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(command, key, "object such as {helpful: -1}");
      bson::BsonDoc sort;
      bson_iter_t s;
      bson_iter_recurse(&it, &s);
      while (bson_iter_next(&s)) {
        const std::string field = bson_iter_key(&s);
        RETURN_IF_ERROR(CheckFieldPath(FieldName(command, "sort." + field), field));
        const double dir = IsNumber(&s) ? bson_iter_as_double(&s) : 0;
        if (dir != 1 && dir != -1) {
          return Status(ErrorCode::kBadValue,
                        FieldName(command, "sort." + field) + " must be 1 or -1");
        }
        BSON_APPEND_INT32(sort.mutable_get(), field.c_str(), dir > 0 ? 1 : -1);
      }
      if (sort.empty()) {
        return Status(ErrorCode::kBadValue, FieldName(command, key) + " must name at least one field");
      }
      config.sort_ = std::move(sort);
    } else if (key == "limit") {
      if (!IsNumber(&it)) return WrongType(command, key, "int");
      const double d = bson_iter_as_double(&it);
      if (!(d == std::trunc(d))) {
        return Status(ErrorCode::kFailedToParse, FieldName(command, key) + " must be a whole number");
      }
      if (d < 1 || d > kMaxLimit) {
        return Status(ErrorCode::kBadValue, FieldName(command, key) + " must be between 1 and " +
                                                std::to_string(kMaxLimit) + ", got " +
                                                std::to_string(static_cast<int64_t>(d)));
      }
      config.limit_ = static_cast<int>(d);
    } else if (key == "project") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(command, key, "object such as {title: 1}");
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      config.project_ = bson::BsonDoc::CopyOf(data, len);
      StatusWith<query::Projection> projection = query::Projection::Parse(config.project_.get());
      if (!projection.ok()) {
        return Status(ErrorCode::kFailedToParse,
                      FieldName(command, key) + ": " + projection.status().reason());
      }
      config.projection_ = std::make_shared<const query::Projection>(std::move(projection).value());
    } else if (key == "counters") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(command, key, "object");
      bson_iter_t c;
      bson_iter_recurse(&it, &c);
      while (bson_iter_next(&c)) {
        const std::string path = bson_iter_key(&c);
        RETURN_IF_ERROR(CheckFieldPath(FieldName(command, "counters." + path), path));
        ASSIGN_OR_RETURN(Counter counter, ParseCounter(command, path, &c));
        config.counters_.push_back(std::move(counter));
      }
    } else {
      return Status(ErrorCode::kLocation40415, FieldName(command, key) + " is an unknown field.");
    }
  }
  for (auto [present, name] : {std::pair{has_parent, "parent"}, std::pair{has_local, "localField"},
                               std::pair{has_as, "as"}}) {
    if (!present) {
      return Status(ErrorCode::kLocation40414,
                    FieldName(command, name) + " is missing but a required field");
    }
  }
  if (config.sort_.empty()) BSON_APPEND_INT32(config.sort_.mutable_get(), "_id", 1);
  bson::BsonDoc order = config.SortWithId();
  bson_iter_t field;
  bson_iter_init(&field, order.get());
  while (bson_iter_next(&field)) {
    if (std::strcmp(bson_iter_key(&field), "_id") == 0) config.id_position_ = config.order_.size();
    config.order_.emplace_back(bson_iter_key(&field), static_cast<int>(bson_iter_as_int64(&field)));
  }
  // The paths the pattern writes must be distinct and leave the parent's
  // key alone.
  std::vector<std::string> owned = config.OwnedPaths();
  for (size_t i = 0; i < owned.size(); ++i) {
    const std::string where = i == 0 ? "as" : "counters." + owned[i];
    if (Overlap(owned[i], "_id") || Overlap(owned[i], config.foreign_field_)) {
      return Status(ErrorCode::kBadValue, FieldName(command, where) + ": '" + owned[i] +
                                              "' would overwrite the parent's key '" +
                                              config.foreign_field_ + "'");
    }
    for (size_t j = 0; j < i; ++j) {
      if (Overlap(owned[i], owned[j])) {
        return Status(ErrorCode::kBadValue, FieldName(command, where) + ": '" + owned[i] +
                                                "' overlaps '" + owned[j] +
                                                "'; the subset and each counter need paths of their own");
      }
    }
  }
  return config;
}

StatusWith<SubsetConfig> SubsetConfig::FromCanonical(const bson_t* config, std::string_view child,
                                                     std::string_view command) {
  bson::BsonDoc wrapped;
  BSON_APPEND_DOCUMENT(wrapped.mutable_get(), "s", config);
  bson_iter_t it;
  bson_iter_init_find(&it, wrapped.get(), "s");
  return Parse(command, &it, child);
}

bson::BsonDoc SubsetConfig::ToCanonical() const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "parent", parent_.c_str());
  BSON_APPEND_UTF8(doc, "localField", local_field_.c_str());
  BSON_APPEND_UTF8(doc, "foreignField", foreign_field_.c_str());
  BSON_APPEND_UTF8(doc, "as", as_.c_str());
  BSON_APPEND_DOCUMENT(doc, "sort", sort_.get());
  BSON_APPEND_INT32(doc, "limit", limit_);
  if (!project_.empty()) BSON_APPEND_DOCUMENT(doc, "project", project_.get());
  if (!counters_.empty()) {
    bson_t counters;
    BSON_APPEND_DOCUMENT_BEGIN(doc, "counters", &counters);
    for (const Counter& c : counters_) {
      bson_append_document(&counters, c.path.c_str(), -1, c.spec.get());
    }
    bson_append_document_end(doc, &counters);
  }
  return out;
}

StatusWith<bson::BsonDoc> SubsetConfig::Project(const bson_t* child) const {
  if (projection_ == nullptr) return bson::BsonDoc::CopyOf(child);
  return projection_->Apply(child, nullptr);
}

bson::BsonDoc SubsetConfig::SortWithId() const {
  bson::BsonDoc out = sort_.Copy();
  bson_iter_t it;
  if (!bson_iter_init_find(&it, sort_.get(), "_id")) BSON_APPEND_INT32(out.mutable_get(), "_id", 1);
  return out;
}

bson::BsonDoc SubsetConfig::IndexKey() const {
  bson::BsonDoc out;
  BSON_APPEND_INT32(out.mutable_get(), local_field_.c_str(), 1);
  bson::BsonDoc sort = SortWithId();
  bson_iter_t it;
  bson_iter_init(&it, sort.get());
  while (bson_iter_next(&it)) {
    if (std::string(bson_iter_key(&it)) == local_field_) continue;
    bson_append_iter(out.mutable_get(), bson_iter_key(&it), -1, &it);
  }
  return out;
}

bson::BsonDoc SubsetConfig::SortKeyOf(const bson_t* child) const {
  bson::BsonDoc key;
  for (size_t i = 0; i < order_.size(); ++i) {
    const std::string index = std::to_string(i);
    bson_iter_t root, it;
    if (bson_iter_init(&root, child) && bson_iter_find_descendant(&root, order_[i].first.c_str(), &it)) {
      bson_append_iter(key.mutable_get(), index.c_str(), -1, &it);
    } else {
      bson_append_null(key.mutable_get(), index.c_str(), -1);
    }
  }
  return key;
}

int SubsetConfig::CompareSortKeys(const bson_t* a, const bson_t* b) const {
  bson_iter_t ia, ib;
  bson_iter_init(&ia, a);
  bson_iter_init(&ib, b);
  for (size_t i = 0; i < order_.size(); ++i) {
    if (!bson_iter_next(&ia) || !bson_iter_next(&ib)) break;
    const int c = bson::CompareValues(&ia, &ib);
    if (c != 0) return order_[i].second > 0 ? c : -c;
  }
  return 0;
}

const bson_value_t* SubsetConfig::IdOfSortKey(const bson_t* key, bson_iter_t* it) const {
  const std::string index = std::to_string(id_position_);
  if (!bson_iter_init_find(it, key, index.c_str())) return nullptr;
  return bson_iter_value(it);
}

std::vector<std::string> SubsetConfig::OwnedPaths() const {
  std::vector<std::string> out{as_};
  for (const Counter& c : counters_) out.push_back(c.path);
  return out;
}

bool SubsetConfig::ChildChangeMatters(const bson_t* before, const bson_t* after) const {
  // Without an inclusion projection every field is copied into the parent.
  bool inclusion = !project_.empty();
  std::vector<std::string> fields{local_field_, "_id"};
  bson_iter_t it;
  bson_iter_init(&it, project_.get());
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    const bool included = BSON_ITER_HOLDS_BOOL(&it) ? bson_iter_bool(&it)
                          : IsNumber(&it)          ? bson_iter_as_double(&it) != 0
                                                   : true;  // computed fields read anything
    if (!BSON_ITER_HOLDS_BOOL(&it) && !IsNumber(&it)) inclusion = false;
    if (key == "_id") continue;
    if (!included) inclusion = false;
    fields.push_back(key);
  }
  if (!inclusion) return std::string_view(reinterpret_cast<const char*>(bson_get_data(before)), before->len) !=
                         std::string_view(reinterpret_cast<const char*>(bson_get_data(after)), after->len);
  bson_iter_init(&it, sort_.get());
  while (bson_iter_next(&it)) fields.emplace_back(bson_iter_key(&it));
  for (const Counter& c : counters_) {
    if (!c.field.empty()) fields.push_back(c.field);
  }
  for (const std::string& f : fields) {
    if (ValueBytes(before, f) != ValueBytes(after, f)) return true;
  }
  return false;
}

}  // namespace tigerdoc::patterns::subset
