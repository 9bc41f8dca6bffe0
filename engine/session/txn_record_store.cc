#include "engine/session/txn_record_store.h"

#include <vector>

namespace tigerdoc::engine {

namespace {

constexpr char kKindWrite[] = "write";
constexpr char kKindCommit[] = "commit";

bson::BsonDoc Encode(const TxnRecord& record) {
  bson::BsonDoc doc;
  bson_t* out = doc.mutable_get();
  BSON_APPEND_INT64(out, "txnNumber", record.txn_number);
  BSON_APPEND_UTF8(out, "kind", record.kind == TxnRecord::Kind::kWrite ? kKindWrite : kKindCommit);
  if (record.kind == TxnRecord::Kind::kWrite) BSON_APPEND_DOCUMENT(out, "reply", record.reply.get());
  BSON_APPEND_DATE_TIME(out, "lastWriteDate", record.last_write_ms);
  return doc;
}

StatusWith<TxnRecord> Decode(std::string_view bytes) {
  ASSIGN_OR_RETURN(bson::BsonDoc doc,
                   bson::BsonDoc::FromBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
  TxnRecord record;
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc.get(), "txnNumber") || !BSON_ITER_HOLDS_INT64(&it)) {
    return Status(ErrorCode::kInternalError, "corrupt transaction record: no txnNumber");
  }
  record.txn_number = bson_iter_int64(&it);
  if (bson_iter_init_find(&it, doc.get(), "kind") && BSON_ITER_HOLDS_UTF8(&it) &&
      std::string_view(bson_iter_utf8(&it, nullptr)) == kKindCommit) {
    record.kind = TxnRecord::Kind::kCommit;
  }
  if (bson_iter_init_find(&it, doc.get(), "reply") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&it, &len, &data);
    record.reply = bson::BsonDoc::CopyOf(data, len);
  }
  if (bson_iter_init_find(&it, doc.get(), "lastWriteDate") && BSON_ITER_HOLDS_DATE_TIME(&it)) {
    record.last_write_ms = bson_iter_date_time(&it);
  }
  return record;
}

}  // namespace

Status TxnRecordStore::Create(storage::Session& session) { return session.CreateTable(kTable); }

StatusWith<std::optional<TxnRecord>> TxnRecordStore::Read(storage::Session& session,
                                                          std::string_view session_id) {
  ASSIGN_OR_RETURN(std::optional<std::string> value, session.Get(kTable, session_id));
  if (!value) return std::optional<TxnRecord>();
  ASSIGN_OR_RETURN(TxnRecord record, Decode(*value));
  return std::optional<TxnRecord>(std::move(record));
}

Status TxnRecordStore::Write(storage::Session& session, std::string_view session_id,
                             const TxnRecord& record) {
  bson::BsonDoc doc = Encode(record);
  return session.Put(kTable, session_id, doc.bytes());
}

Status TxnRecordStore::Remove(storage::Session& session, std::string_view session_id) {
  Status removed = session.Remove(kTable, session_id);
  return removed.code() == ErrorCode::kNoSuchKey ? Status::OK() : removed;
}

Status TxnRecordStore::RemoveOlderThan(storage::Session& session, int64_t cutoff_ms) {
  std::vector<std::string> expired;
  {
    ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(kTable, "", ""));
    Status status;
    while (cursor.Next(&status)) {
      StatusWith<TxnRecord> record = Decode(cursor.value());
      if (!record.ok() || record.value().last_write_ms < cutoff_ms) expired.emplace_back(cursor.key());
    }
    RETURN_IF_ERROR(status);
  }
  for (const std::string& key : expired) RETURN_IF_ERROR(Remove(session, key));
  return Status::OK();
}

}  // namespace tigerdoc::engine
