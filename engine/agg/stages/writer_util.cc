#include "engine/agg/stages/writer_util.h"

namespace tigerdoc::agg {

bool IsWriterStage(std::string_view name) { return name == "$out" || name == "$merge"; }

StatusWith<TargetNamespace> ParseDbColl(const bson_t* obj, std::string_view field,
                                        const std::string& default_db, bool require_db) {
  TargetNamespace target;
  bool have_db = false, have_coll = false;
  bson_iter_t it;
  bson_iter_init(&it, obj);
  while (bson_iter_next(&it)) {
    std::string key = bson_iter_key(&it);
    if (key != "db" && key != "coll") {
      return Error(40415, "BSON field '" + std::string(field) + "." + key + "' is an unknown field.");
    }
    if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return Error(static_cast<int>(ErrorCode::kTypeMismatch),
                   "BSON field '" + std::string(field) + "." + key + "' is the wrong type '" +
                       TypeNameOf(bson_iter_type(&it)) + "', expected type 'string'");
    }
    (key == "db" ? target.db : target.coll) = bson_iter_utf8(&it, nullptr);
    (key == "db" ? have_db : have_coll) = true;
  }
  if (!have_db && require_db) {
    return Error(40414, "BSON field '" + std::string(field) + ".db' is missing but a required field");
  }
  if (!have_coll) {
    return Error(40414, "BSON field '" + std::string(field) + ".coll' is missing but a required field");
  }
  if (!have_db) target.db = default_db;
  return target;
}

Status ValidateTargetName(const TargetNamespace& target, std::string_view stage,
                          std::string_view separator) {
  bool ok = !target.db.empty() && !target.coll.empty() &&
            target.db.find_first_of("/\\. \"$") == std::string::npos &&
            target.coll.find('$') == std::string::npos && target.coll.front() != '.' &&
            target.db.find('\0') == std::string::npos && target.coll.find('\0') == std::string::npos;
  if (ok) return Status::OK();
  return Error(static_cast<int>(ErrorCode::kInvalidNamespace),
               "Invalid " + std::string(stage) + " target namespace" + std::string(separator) +
                   target.ns() + (separator == ": '" ? "'" : ""));
}

Status InsertBatcher::Add(bson::BsonDoc doc) {
  bytes_ += doc.size();
  batch_.push_back(std::move(doc));
  if (bytes_ >= kMaxBatchBytes || batch_.size() >= kMaxBatchDocs) return Flush();
  return Status::OK();
}

Status InsertBatcher::Flush() {
  if (batch_.empty()) return Status::OK();
  std::vector<bson::BsonDoc> docs = std::move(batch_);
  batch_.clear();
  bytes_ = 0;
  if (mode_ == Mode::kOrdered) return resolver_->Insert(target_.db, target_.coll, std::move(docs));
  std::vector<bson::BsonDoc> retry;
  retry.reserve(docs.size());
  for (const bson::BsonDoc& d : docs) retry.push_back(d.Copy());
  Status first = resolver_->Insert(target_.db, target_.coll, std::move(docs));
  if (first.ok()) return first;
  for (bson::BsonDoc& d : retry) {
    std::vector<bson::BsonDoc> one;
    one.push_back(std::move(d));
    (void)resolver_->Insert(target_.db, target_.coll, std::move(one));
  }
  return first;
}

}  // namespace tigerdoc::agg
