#include "engine/id_point_read.h"

#include <cmath>
#include <cstring>
#include <string_view>

#include "engine/bson/compare.h"
#include "engine/index/index_spec.h"

namespace tigerdoc::engine {

namespace {
// This thread's spare batch vector (RecycleBatch); empty, with capacity
// when there is one.
thread_local std::vector<bson::BsonDoc> t_spare_batch;
constexpr size_t kMaxRecycledCapacity = 4;

// True when the stored document's first field is _id holding exactly the
// type and value bytes of *id (an element FindIdEquality accepted): then
// CompareValues of the two is 0 without being asked (about 400
// instructions of a find by _id, issue #18). Any other shape (an _id not
// first, 1 against 1.0) is left to the comparison.
bool StoredIdHasTheSameBytes(const bson_t* doc, const bson_iter_t& id) {
  constexpr size_t kValueAt = 4 + 1 + 4;  // document length, type, "_id\0"
  const uint8_t* value = id.raw + id.d1;
  const size_t n = id.next_off - id.d1;
  const uint8_t* data = bson_get_data(doc);
  return doc->len >= kValueAt + n + 1 && data[4] == static_cast<uint8_t>(id.raw[id.type]) &&
         std::memcmp(data + 5, "_id", 4) == 0 && std::memcmp(data + kValueAt, value, n) == 0;
}
}  // namespace

void RecycleBatch(std::vector<bson::BsonDoc>* docs) {
  docs->clear();
  if (docs->capacity() == 0 || docs->capacity() > kMaxRecycledCapacity ||
      t_spare_batch.capacity() != 0) {
    std::vector<bson::BsonDoc>().swap(*docs);
    return;
  }
  t_spare_batch.swap(*docs);
}

bool FindIdEquality(const bson_t* filter, bson_iter_t* id) {
  if (!bson_iter_init(id, filter) || !bson_iter_next(id) ||
      std::string_view(bson_iter_key(id)) != "_id") {
    return false;
  }
  switch (bson_iter_type(id)) {
    case BSON_TYPE_UTF8:
    case BSON_TYPE_INT32:
    case BSON_TYPE_INT64:
    case BSON_TYPE_OID:
      break;
    case BSON_TYPE_DOUBLE:
      if (!std::isfinite(bson_iter_double(id))) return false;
      break;
    default:
      return false;
  }
  bson_iter_t after = *id;
  return !bson_iter_next(&after);  // more than _id: not a point read
}

bool StoredIdEquals(const bson_t* doc, const bson_iter_t& id) {
  bson_iter_t stored;
  return StoredIdHasTheSameBytes(doc, id) ||
         (bson_iter_init_find(&stored, doc, "_id") && bson::CompareValues(&stored, &id) == 0);
}

std::optional<bson::BsonDoc> IdEqualityOf(const bson_t* filter) {
  bson_iter_t it;
  if (!FindIdEquality(filter, &it)) return std::nullopt;
  bson::BsonDoc id;
  bson_append_value(id.mutable_get(), "_id", 3, bson_iter_value(&it));
  return id;
}

StatusWith<std::optional<std::vector<bson::BsonDoc>>> FindByIdWithoutPlan(
    storage::StorageEngine& storage, const catalog::CollectionEntry& coll, const FindParams& params,
    const bson::Collator* collator) {
  using NoFastPath = std::optional<std::vector<bson::BsonDoc>>;
  const bool plain_options =
      params.skip == 0 && params.batch_size.value_or(1) > 0 && params.sort.empty() &&
      params.projection.empty() && params.hint == FindHint::kNone && params.min.empty() &&
      params.max.empty() && params.let.empty() && !params.return_key && !params.show_record_id &&
      !params.tailable && params.max_time_ms == 0 && params.explained == ExplainedCommand::kFind;
  if (!plain_options || collator != nullptr || !coll.store->shard_key_is_id()) return NoFastPath();
  bson_iter_t id_it;  // on v inside params.filter
  if (!FindIdEquality(params.filter.get(), &id_it) || !coll.indexes()->specs.empty()) {
    return NoFastPath();
  }
  coll.id_index_usage->Record();
  storage::Session session = storage.NewSession();
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, coll.store->FindById(session, bson_iter_value(&id_it)));
  std::vector<bson::BsonDoc> docs;
  docs.swap(t_spare_batch);  // empty; its storage, if any, is reused
  // The record key is the _id's keystring, so the stored _id equals v as
  // $eq compares (1, 1.0 and NumberLong(1) alike); checked all the same,
  // as the plan's filter would.
  if (doc && StoredIdEquals(doc->get(), id_it)) docs.push_back(std::move(*doc));
  return NoFastPath(std::move(docs));
}

}  // namespace tigerdoc::engine
