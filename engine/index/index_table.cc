// Index table names and the entry format (grammar in index_table.h).

#include "engine/index/index_table.h"

namespace tigerdoc::index {
namespace {

constexpr uint8_t kEntryFormatVersion = 0x01;

void PutU32(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v >> 24));
  out->push_back(static_cast<char>(v >> 16));
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v));
}

uint32_t GetU32(std::string_view in) {
  auto b = [&](size_t i) { return static_cast<uint32_t>(static_cast<uint8_t>(in[i])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

Status Corrupt(const std::string& what) {
  return Status(ErrorCode::kFailedToParse, "corrupt index entry: " + what);
}

bool ParseDigits(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  *out = n;
  return true;
}

}  // namespace

std::string IndexTableName(std::string_view ident, int64_t index_id, int shard) {
  std::string name(ident);
  name += "-x";
  name += std::to_string(index_id);
  if (shard >= 0) {
    name += "-s";
    name += std::to_string(shard);
  }
  return name;
}

std::vector<IndexTableRef> IndexTablesFor(std::string_view ident, const IndexSpec& spec,
                                          int num_shards, const std::vector<int>& shards) {
  std::vector<IndexTableRef> out;
  if (spec.unique) {
    out.push_back(IndexTableRef{IndexTableName(ident, spec.id, -1), -1});
    return out;
  }
  if (shards.empty()) {
    for (int s = 0; s < num_shards; ++s) out.push_back({IndexTableName(ident, spec.id, s), s});
  } else {
    for (int s : shards) out.push_back({IndexTableName(ident, spec.id, s), s});
  }
  return out;
}

std::optional<int64_t> IndexIdOfTable(std::string_view table) {
  size_t dash = table.find('-');
  if (dash == std::string_view::npos || table.substr(dash + 1, 1) != "x") return std::nullopt;
  std::string_view rest = table.substr(dash + 2);
  size_t next = rest.find('-');
  std::string_view digits = rest.substr(0, next);
  int64_t id = 0;
  if (!ParseDigits(digits, &id)) return std::nullopt;
  if (next != std::string_view::npos) {
    std::string_view suffix = rest.substr(next + 1);
    int64_t shard = 0;
    if (suffix.size() < 2 || suffix[0] != 's' || !ParseDigits(suffix.substr(1), &shard)) {
      return std::nullopt;
    }
  }
  return id;
}

std::string EntryTable(std::string_view ident, const IndexSpec& spec, int shard) {
  return IndexTableName(ident, spec.id, spec.unique ? -1 : shard);
}

std::string EncodeEntryKey(const IndexSpec& spec, std::string_view encoded_key,
                           std::string_view record_key) {
  std::string key(encoded_key);
  if (!spec.unique) key.append(record_key);
  return key;
}

std::string EncodeEntryValue(int shard, std::string_view record_key, const bson::BsonDoc& values) {
  std::string out;
  out.reserve(9 + record_key.size() + values.size());
  out.push_back(static_cast<char>(kEntryFormatVersion));
  PutU32(&out, static_cast<uint32_t>(shard));
  PutU32(&out, static_cast<uint32_t>(record_key.size()));
  out.append(record_key);
  out.append(values.bytes());
  return out;
}

StatusWith<IndexEntry> DecodeIndexEntry(std::string_view key, std::string_view value) {
  static_cast<void>(key);
  if (value.size() < 9) return Corrupt("value too short");
  if (static_cast<uint8_t>(value[0]) != kEntryFormatVersion) {
    return Corrupt("unknown format version " + std::to_string(static_cast<uint8_t>(value[0])));
  }
  IndexEntry entry;
  entry.shard = static_cast<int>(GetU32(value.substr(1)));
  const uint32_t record_len = GetU32(value.substr(5));
  if (value.size() < 9 + static_cast<size_t>(record_len)) return Corrupt("record key truncated");
  entry.record_key.assign(value.substr(9, record_len));
  std::string_view bson_bytes = value.substr(9 + record_len);
  auto values = bson::BsonDoc::FromBytes(reinterpret_cast<const uint8_t*>(bson_bytes.data()),
                                         bson_bytes.size());
  if (!values.ok()) return Corrupt("bad key values");
  entry.key_values = std::move(values).value();
  return entry;
}

Status CreateIndexTables(storage::Session& session, std::string_view ident, const IndexSpec& spec,
                         int num_shards) {
  for (const IndexTableRef& ref : IndexTablesFor(ident, spec, num_shards)) {
    RETURN_IF_ERROR(session.CreateTable(ref.table));
  }
  return Status::OK();
}

Status DropIndexTables(storage::Session& session, std::string_view ident, const IndexSpec& spec,
                       int num_shards) {
  Status first;
  for (const IndexTableRef& ref : IndexTablesFor(ident, spec, num_shards)) {
    Status st = session.DropTable(ref.table);
    if (first.ok()) first = st;
  }
  return first;
}

StatusWith<int64_t> IndexSizeBytes(storage::Session& session, std::string_view ident,
                                   const IndexSpec& spec, int num_shards,
                                   const std::vector<int>& shards) {
  int64_t bytes = 0;
  for (const IndexTableRef& ref : IndexTablesFor(ident, spec, num_shards, shards)) {
    ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(ref.table, "", ""));
    Status status;
    while (cursor.Next(&status)) {
      bytes += static_cast<int64_t>(cursor.key().size() + cursor.value().size());
    }
    RETURN_IF_ERROR(status);
  }
  return bytes;
}

}  // namespace tigerdoc::index
