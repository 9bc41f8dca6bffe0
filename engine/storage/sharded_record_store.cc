// ShardedRecordStore: placement of documents in shard tables (see the header
// for the layout) and the transactional size counters.

#include "engine/storage/sharded_record_store.h"

#include <algorithm>
#include <cstring>

#include "engine/bson/raw_fields.h"
#include "engine/keystring/key_string.h"
#include "engine/storage/shard_router.h"

namespace tigerdoc::storage {

namespace {

constexpr char kShardKeyArrayMessage[] =
    "Shard key cannot contain array values or array descendants.";

// Runs `fn` when the session's transaction commits, or now for a write that
// was auto-committed (no transaction running).
void AfterCommit(Session& session, std::function<void()> fn) {
  if (session.in_transaction()) {
    session.OnCommit(std::move(fn));
  } else {
    fn();
  }
}

std::string_view Bytes(const bson_t* doc) {
  return {reinterpret_cast<const char*>(bson_get_data(doc)), doc->len};
}

// The bytes that identify an _id value of the types a memo below holds
// (equal type and bytes, equal keystring); false for other types.
bool IdValueBytes(const bson_value_t* v, std::string_view* out) {
  switch (v->value_type) {
    case BSON_TYPE_UTF8:
      *out = {v->value.v_utf8.str, v->value.v_utf8.len};
      return true;
    case BSON_TYPE_INT32:
      *out = {reinterpret_cast<const char*>(&v->value.v_int32), sizeof(v->value.v_int32)};
      return true;
    case BSON_TYPE_INT64:
      *out = {reinterpret_cast<const char*>(&v->value.v_int64), sizeof(v->value.v_int64)};
      return true;
    case BSON_TYPE_DOUBLE:
      *out = {reinterpret_cast<const char*>(&v->value.v_double), sizeof(v->value.v_double)};
      return true;
    case BSON_TYPE_OID:
      *out = {reinterpret_cast<const char*>(v->value.v_oid.bytes), sizeof(v->value.v_oid.bytes)};
      return true;
    default:
      return false;
  }
}


}  // namespace

ShardedRecordStore::ShardedRecordStore(std::string ident, int num_shards,
                                       std::string shard_key_field, bool capped)
    : ident_(std::move(ident)),
      num_shards_(num_shards),
      shard_key_field_(std::move(shard_key_field)),
      capped_(capped),
      stats_(new Counters[num_shards]) {
  INVARIANT(num_shards_ >= 1);
  INVARIANT(!capped_ || num_shards_ == 1);
}

namespace {

std::string EncodeSequence(uint64_t seq) {
  std::string out(8, '\0');
  for (int i = 7; i >= 0; --i, seq >>= 8) out[i] = static_cast<char>(seq & 0xff);
  return out;
}

}  // namespace

uint64_t ShardedRecordStore::SequenceOf(std::string_view record_key) {
  uint64_t seq = 0;
  for (size_t i = 0; i < 8 && i < record_key.size(); ++i) {
    seq = (seq << 8) | static_cast<uint8_t>(record_key[i]);
  }
  return seq;
}

std::string ShardedRecordStore::OldestKeyLowerBound() const {
  std::lock_guard<std::mutex> lock(commit_mutex_);
  return EncodeSequence(oldest_lower_bound_);
}

void ShardedRecordStore::AdvanceOldestKeyLowerBound(std::string_view removed_record_key) {
  const uint64_t next = SequenceOf(removed_record_key) + 1;
  std::lock_guard<std::mutex> lock(commit_mutex_);
  oldest_lower_bound_ = std::max(oldest_lower_bound_, next);
}

uint64_t ShardedRecordStore::commits() const {
  std::lock_guard<std::mutex> lock(commit_mutex_);
  return commits_;
}

uint64_t ShardedRecordStore::WaitForCommitAfter(
    uint64_t seen, std::chrono::steady_clock::time_point deadline) const {
  std::unique_lock<std::mutex> lock(commit_mutex_);
  commit_cv_.wait_until(lock, deadline, [&] { return commits_ != seen; });
  return commits_;
}

std::string ShardedRecordStore::TableName(int shard) const {
  return ShardTableName(ident_, shard);
}

std::string ShardedRecordStore::ShardTableName(const std::string& ident, int shard) {
  return ident + "-s" + std::to_string(shard);
}

std::string ShardedRecordStore::IdTableName(const std::string& ident) { return ident + "-id"; }

std::string ShardedRecordStore::CollatedIdTableName(const std::string& ident) { return ident + "-idc"; }

Status ShardedRecordStore::CreateTables(Session& session, const std::string& ident,
                                        int num_shards, bool shard_key_is_id, bool collated_id) {
  for (int shard = 0; shard < num_shards; ++shard) {
    RETURN_IF_ERROR(session.CreateTable(ShardTableName(ident, shard)));
  }
  if (!shard_key_is_id) RETURN_IF_ERROR(session.CreateTable(IdTableName(ident)));
  if (collated_id) RETURN_IF_ERROR(session.CreateTable(CollatedIdTableName(ident)));
  return Status::OK();
}

Status ShardedRecordStore::DropTables(Session& session, const std::string& ident,
                                      int num_shards) {
  // Try every table even after a failure, so as little as possible is left
  // for the start-up reaper.
  Status first = session.DropTable(IdTableName(ident));
  Status collated = session.DropTable(CollatedIdTableName(ident));
  if (first.ok()) first = collated;
  for (int shard = 0; shard < num_shards; ++shard) {
    Status st = session.DropTable(ShardTableName(ident, shard));
    if (first.ok()) first = st;
  }
  return first;
}

Status ShardedRecordStore::LoadStats(Session& session) {
  for (int shard = 0; shard < num_shards_; ++shard) {
    int64_t count = 0, bytes = 0;
    ASSIGN_OR_RETURN(Cursor cursor, session.Scan(TableName(shard), "", ""));
    Status status;
    std::string last_key;
    while (cursor.Next(&status)) {
      ++count;
      bytes += static_cast<int64_t>(cursor.value().size());
      if (capped_) last_key.assign(cursor.key());
    }
    RETURN_IF_ERROR(status);
    // Sequences are never reused while records stand; after a restart the
    // next one follows the newest kept record.
    if (capped_ && !last_key.empty()) next_sequence_.store(SequenceOf(last_key) + 1);
    stats_[shard].count.store(count);
    stats_[shard].data_bytes.store(bytes);
  }
  return Status::OK();
}

Status ShardedRecordStore::ForEachDocument(
    Session& session, const std::function<Status(int shard, const bson_t* doc)>& fn) const {
  for (int shard = 0; shard < num_shards_; ++shard) {
    ASSIGN_OR_RETURN(Cursor cursor, session.Scan(TableName(shard), "", ""));
    Status status;
    while (cursor.Next(&status)) {
      bson_t doc;
      if (!bson_init_static(&doc, reinterpret_cast<const uint8_t*>(cursor.value().data()),
                            cursor.value().size())) {
        return Status(ErrorCode::kInternalError,
                      "a record of " + TableName(shard) + " is not a BSON document");
      }
      RETURN_IF_ERROR(fn(shard, &doc));
    }
    RETURN_IF_ERROR(status);
  }
  return Status::OK();
}

// Walks `shard_key_field_` one component at a time: libbson's
// bson_iter_find_descendant would step into arrays ("a.0", or "a.b" matching
// nothing inside an array), and MongoDB refuses shard key paths that cross
// an array, so each step checks the type itself.
Status ShardedRecordStore::FindShardKey(const bson_t* doc, bson_iter_t* out, bool* found) const {
  *found = false;
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) return Status(ErrorCode::kInvalidBSON, "invalid BSON document");
  std::string_view rest = shard_key_field_;
  for (;;) {
    size_t dot = rest.find('.');
    std::string_view component = rest.substr(0, dot);
    if (!bson_iter_find_w_len(&it, component.data(), static_cast<int>(component.size()))) {
      return Status::OK();  // missing
    }
    if (BSON_ITER_HOLDS_ARRAY(&it)) return Status(ErrorCode::kBadValue, kShardKeyArrayMessage);
    if (dot == std::string_view::npos) {
      *out = it;
      *found = true;
      return Status::OK();
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return Status::OK();  // path ends at a scalar: missing
    bson_iter_t child;
    if (!bson_iter_recurse(&it, &child)) {
      return Status(ErrorCode::kInvalidBSON, "invalid BSON document");
    }
    it = child;
    rest = rest.substr(dot + 1);
  }
}

StatusWith<bson::BsonDoc> ShardedRecordStore::ShardKeyOf(const bson_t* doc) const {
  bson_iter_t it;
  bool found = false;
  RETURN_IF_ERROR(FindShardKey(doc, &it, &found));
  bson::BsonDoc out;
  if (found) {
    bson_append_iter(out.mutable_get(), "", 0, &it);
  } else {
    bson_append_null(out.mutable_get(), "", 0);
  }
  return out;
}

int ShardedRecordStore::ShardForValue(const bson_value_t* shard_key_value) const {
  return ShardForEncodedKey(keystring::Encode(shard_key_value), num_shards_);
}

std::string ShardedRecordStore::PartitionPrefix(const bson_value_t* shard_key_value) {
  return keystring::Encode(shard_key_value);
}

StatusWith<ShardedRecordStore::Placement> ShardedRecordStore::PlacementOf(
    const bson_t* doc) const {
  bson_iter_t id_it;
  if (!bson_iter_init_find(&id_it, doc, "_id")) {
    return Status(ErrorCode::kBadValue, "document to store has no _id");
  }
  Placement placement;
  placement.id_key = keystring::Encode(&id_it);

  if (shard_key_is_id()) {
    if (BSON_ITER_HOLDS_ARRAY(&id_it)) return Status(ErrorCode::kBadValue, kShardKeyArrayMessage);
    // The record key is the _id's keystring twice; no copy of a prefix.
    placement.shard = ShardForEncodedKey(placement.id_key, num_shards_);
    placement.record_key.reserve(2 * placement.id_key.size());
    placement.record_key.append(placement.id_key).append(placement.id_key);
    return placement;
  }
  std::string prefix;
  {
    bson_iter_t key_it;
    bool found = false;
    RETURN_IF_ERROR(FindShardKey(doc, &key_it, &found));
    keystring::KeyBuilder builder;
    if (found) {
      builder.Append(&key_it);
    } else {
      builder.AppendNull();
    }
    prefix = builder.Release();
  }
  placement.shard = ShardForEncodedKey(prefix, num_shards_);
  placement.record_key = prefix + placement.id_key;
  return placement;
}

StatusWith<ShardedRecordStore::Placement> ShardedRecordStore::PlacementOf(
    Session& session, const bson_t* doc) const {
  if (!capped_) return PlacementOf(doc);
  bson_iter_t id_it;
  if (!bson_iter_init_find(&id_it, doc, "_id")) {
    return Status(ErrorCode::kBadValue, "document to store has no _id");
  }
  Placement placement;
  placement.id_key = keystring::Encode(&id_it);
  ASSIGN_OR_RETURN(std::optional<std::string> stored,
                   session.Get(IdTableName(ident_), placement.id_key));
  if (!stored) return Status(ErrorCode::kNoSuchKey, "no record with this _id in " + ident_);
  placement.record_key = std::move(*stored);
  return placement;
}

StatusWith<ShardedRecordStore::Location> ShardedRecordStore::LocationOf(const bson_t* doc) const {
  if (capped_) {
    return Status(ErrorCode::kInternalError, "a capped record's location needs a session");
  }
  ASSIGN_OR_RETURN(Placement placement, PlacementOf(doc));
  return Location{placement.shard, std::move(placement.record_key)};
}

StatusWith<ShardedRecordStore::Location> ShardedRecordStore::LocationOf(
    Session& session, const bson_t* doc) const {
  ASSIGN_OR_RETURN(Placement placement, PlacementOf(session, doc));
  return Location{placement.shard, std::move(placement.record_key)};
}

Status ShardedRecordStore::Insert(Session& session, const bson_t* doc) {
  Placement placement;
  if (capped_) {
    bson_iter_t id_it;
    if (!bson_iter_init_find(&id_it, doc, "_id")) {
      return Status(ErrorCode::kBadValue, "document to store has no _id");
    }
    placement.id_key = keystring::Encode(&id_it);
    // A rolled-back insert leaves a gap in the sequence, which is harmless.
    placement.record_key = EncodeSequence(next_sequence_.fetch_add(1)) + placement.id_key;
  } else {
    ASSIGN_OR_RETURN(placement, PlacementOf(doc));
  }
  if (!shard_key_is_id()) {
    // The _id table is what keeps _id unique across shards: two documents
    // with one _id but different shard key values have different record keys.
    RETURN_IF_ERROR(session.Insert(IdTableName(ident_), placement.id_key, placement.record_key));
  }
  RETURN_IF_ERROR(session.Insert(TableName(placement.shard), placement.record_key, Bytes(doc)));
  // this + two 32-bit values: the closure fits in std::function's inline
  // storage (16 bytes), so queueing it allocates nothing.
  const int shard = placement.shard;
  const uint32_t bytes = doc->len;
  AfterCommit(session, [this, shard, bytes] {
    AddStats(shard, 1, bytes);
    if (capped_) {
      // Tailing readers (awaitData) wake up on committed inserts.
      {
        std::lock_guard<std::mutex> lock(commit_mutex_);
        ++commits_;
      }
      commit_cv_.notify_all();
    }
  });
  return Status::OK();
}

namespace {

// The bytes of `doc`'s first element (type, name, value) when it is an _id
// that RawFields can walk (inserts put _id first); empty otherwise (then
// SameIdElement walks the documents).
std::string_view LeadingIdElement(const bson_t* doc) {
  bson::RawFields fields(doc);
  if (!fields.Next() || fields.key() != "_id") return {};
  return {reinterpret_cast<const char*>(bson_get_data(doc)) + fields.offset(),
          fields.end() - fields.offset()};
}

// Both documents hold an _id element of the same type and bytes.
bool SameIdElement(const bson_t* a, const bson_t* b) {
  // Both with _id first (an update keeps it there): compare those bytes,
  // without the two walks and iterators below (about 500 instructions of
  // an update by _id).
  const std::string_view lead_a = LeadingIdElement(a);
  if (!lead_a.empty()) {
    const std::string_view lead_b = LeadingIdElement(b);
    if (!lead_b.empty()) return lead_a == lead_b;
  }
  bson_iter_t ia, ib;
  if (!bson::FindTopLevel(a, "_id", &ia) || !bson::FindTopLevel(b, "_id", &ib)) return false;
  const size_t na = ia.next_off - ia.off, nb = ib.next_off - ib.off;
  return na == nb && std::memcmp(ia.raw + ia.off, ib.raw + ib.off, na) == 0;
}

}  // namespace

thread_local ShardedRecordStore::IdPlacementMemo ShardedRecordStore::last_id_placement_;

const ShardedRecordStore::Placement* ShardedRecordStore::MemoizedPlacementOf(
    const bson_t* doc) const {
  const IdPlacementMemo& memo = last_id_placement_;
  if (memo.num_shards != num_shards_ || !shard_key_is_id()) return nullptr;
  bson_iter_t it;
  if (!bson::FindTopLevel(doc, "_id", &it)) return nullptr;
  std::string_view value_bytes;
  const bson_value_t* id = bson_iter_value(&it);
  if (id->value_type != memo.type || !IdValueBytes(id, &value_bytes) ||
      value_bytes != memo.value) {
    return nullptr;
  }
  return &memo.placement;
}

Status ShardedRecordStore::Update(Session& session, const bson_t* old_doc,
                                  const bson_t* new_doc) {
  Placement from_storage, to_storage;
  const Placement* memo = MemoizedPlacementOf(old_doc);
  if (memo == nullptr) {
    ASSIGN_OR_RETURN(from_storage, PlacementOf(session, old_doc));
  }
  const Placement& from = memo != nullptr ? *memo : from_storage;
  const Placement* to_ptr = &to_storage;
  if (capped_) {
    to_ptr = &from;  // an update keeps the record's place in insertion order
  } else if (shard_key_is_id() && SameIdElement(old_doc, new_doc)) {
    // The record key is a function of the _id bytes alone: encoding it
    // again (a sixth of this function) would give the same placement.
    to_ptr = &from;
  } else {
    ASSIGN_OR_RETURN(to_storage, PlacementOf(new_doc));
  }
  const Placement& to = *to_ptr;
  if (from.id_key != to.id_key) {
    return Status(ErrorCode::kInternalError, "ShardedRecordStore::Update cannot change _id");
  }
  const int64_t old_bytes = old_doc->len, new_bytes = new_doc->len;
  if (from.record_key == to.record_key) {
    // Through the cursor FindById left on the record when nothing moved it.
    RETURN_IF_ERROR(session.Replace(TableName(to.shard), to.record_key, Bytes(new_doc)));
    // 32 bits suffice for the difference of two BSON sizes (each below
    // 2^31): the closure then fits in std::function's inline storage.
    const int shard = to.shard;
    const int32_t delta = static_cast<int32_t>(new_bytes - old_bytes);
    AfterCommit(session, [this, shard, delta] { AddStats(shard, 0, delta); });
    return Status::OK();
  }
  // The shard key value changed: the document moves to its new partition
  // (possibly another shard), and the _id table follows it.
  RETURN_IF_ERROR(session.Remove(TableName(from.shard), from.record_key));
  RETURN_IF_ERROR(session.Insert(TableName(to.shard), to.record_key, Bytes(new_doc)));
  if (!shard_key_is_id()) {
    RETURN_IF_ERROR(session.Put(IdTableName(ident_), to.id_key, to.record_key));
  }
  const int old_shard = from.shard, new_shard = to.shard;
  AfterCommit(session, [this, old_shard, new_shard, old_bytes, new_bytes] {
    AddStats(old_shard, -1, -old_bytes);
    AddStats(new_shard, 1, new_bytes);
  });
  return Status::OK();
}

Status ShardedRecordStore::Remove(Session& session, const bson_t* doc) {
  ASSIGN_OR_RETURN(Placement placement, PlacementOf(session, doc));
  RETURN_IF_ERROR(session.Remove(TableName(placement.shard), placement.record_key));
  if (!shard_key_is_id()) RETURN_IF_ERROR(session.Remove(IdTableName(ident_), placement.id_key));
  const int shard = placement.shard;
  const uint32_t bytes = doc->len;  // the closure fits std::function's inline storage
  AfterCommit(session, [this, shard, bytes] { AddStats(shard, -1, -static_cast<int64_t>(bytes)); });
  return Status::OK();
}

StatusWith<std::optional<bson::BsonDoc>> ShardedRecordStore::FindById(Session& session,
                                                                     const bson_value_t* id) {
  const std::string id_key = keystring::Encode(id);
  std::string record_key;
  int shard = 0;
  if (shard_key_is_id()) {
    shard = ShardForEncodedKey(id_key, num_shards_);
    record_key = id_key + id_key;
    std::string_view value_bytes;
    if (session.in_transaction() && IdValueBytes(id, &value_bytes)) {
      IdPlacementMemo& memo = last_id_placement_;
      memo.num_shards = num_shards_;
      memo.type = id->value_type;
      memo.value.assign(value_bytes);
      memo.placement.shard = shard;
      memo.placement.record_key.assign(record_key);
      memo.placement.id_key.assign(id_key);
    }
  } else {
    ASSIGN_OR_RETURN(std::optional<std::string> stored, session.Get(IdTableName(ident_), id_key));
    if (!stored) return std::optional<bson::BsonDoc>();
    record_key = std::move(*stored);
    // record key = keystring(shard key value) ++ keystring(_id), so the
    // partition prefix (what the shard hash covers) is what precedes id_key.
    if (record_key.size() < id_key.size() ||
        record_key.compare(record_key.size() - id_key.size(), id_key.size(), id_key) != 0) {
      return Status(ErrorCode::kInternalError,
                    "corrupt _id table entry in " + IdTableName(ident_));
    }
    shard = ShardForEncodedKey(
        std::string_view(record_key).substr(0, record_key.size() - id_key.size()), num_shards_);
  }
  // One copy, straight out of WiredTiger's page; inside a transaction the
  // cursor stays on the record for an Update of it (Session::Replace).
  std::optional<bson::BsonDoc> doc;
  ASSIGN_OR_RETURN(bool found, session.Read(TableName(shard), record_key, [&](std::string_view value) {
    doc.emplace(bson::BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(value.data()), value.size()));
  }));
  // Outside a transaction the two reads above are separate snapshots; a
  // document removed in between is simply absent.
  if (!found) return std::optional<bson::BsonDoc>();
  return doc;
}

ShardStats ShardedRecordStore::StatsOf(int shard) const {
  INVARIANT(shard >= 0 && shard < num_shards_);
  return ShardStats{stats_[shard].count.load(), stats_[shard].data_bytes.load()};
}

ShardStats ShardedRecordStore::TotalStats() const {
  ShardStats total;
  for (int shard = 0; shard < num_shards_; ++shard) {
    total.count += stats_[shard].count.load();
    total.data_bytes += stats_[shard].data_bytes.load();
  }
  return total;
}

void ShardedRecordStore::AddStats(int shard, int64_t count_delta, int64_t bytes_delta) {
  stats_[shard].count.fetch_add(count_delta);
  stats_[shard].data_bytes.fetch_add(bytes_delta);
}

}  // namespace tigerdoc::storage
