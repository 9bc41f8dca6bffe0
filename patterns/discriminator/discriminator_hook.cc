#include "patterns/discriminator/discriminator_hook.h"
#include "patterns/common/backfill_walk.h"

#include <atomic>
#include <map>

#include "engine/bson/shell_string.h"
#include "engine/storage/sharded_record_store.h"
#include "patterns/common/counts.h"

namespace tigerdoc::patterns::discriminator {
namespace {

// The marker row and its value: the table is complete and in the format of
// this version (0x02: counts per shard; rows of 0x01 tables are rebuilt).
constexpr char kMarker[] = "m";
constexpr char kMarkerValue[] = "\x02";

// (bucket, shard) -> summed stripes, from the table.
using ShardBuckets = std::map<std::pair<std::string, int>, Counts>;

StatusWith<ShardBuckets> ReadBuckets(storage::Session& session, const std::string& table) {
  ShardBuckets out;
  ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, "", ""));
  Status status;
  while (cursor.Next(&status)) {
    std::string_view key = cursor.key();
    if (key == kMarker || key.size() < 4) continue;
    ASSIGN_OR_RETURN(Counts c, DecodeCounts(cursor.value()));
    const auto hi = static_cast<unsigned char>(key[key.size() - 3]);
    const auto lo = static_cast<unsigned char>(key[key.size() - 2]);
    out[{std::string(key.substr(0, key.size() - 3)), hi << 8 | lo}] += c;
  }
  RETURN_IF_ERROR(status);
  return out;
}

// 121 with errInfo {failingDocumentId, details[, discriminator]}.
Status Failure(const bson_t* doc, const std::string& message, const bson_t* details,
               const bson_t* discriminator = nullptr) {
  bson::BsonDoc extra;
  bson_t info;
  BSON_APPEND_DOCUMENT_BEGIN(extra.mutable_get(), "errInfo", &info);
  bson_iter_t id;
  if (bson_iter_init_find(&id, doc, "_id")) bson_append_iter(&info, "failingDocumentId", -1, &id);
  BSON_APPEND_DOCUMENT(&info, "details", details);
  if (discriminator) BSON_APPEND_DOCUMENT(&info, "discriminator", discriminator);
  bson_append_document_end(extra.mutable_get(), &info);
  return Status(ErrorCode::kDocumentValidationFailure, message, std::string(extra.bytes()));
}

}  // namespace

std::string TypesTableName(const std::string& ident) { return ident + "-types"; }

DiscriminatorHook::DiscriminatorHook(DiscriminatorConfig config,
                                     const catalog::CollectionEntry& coll)
    : config_(std::move(config)), table_(TypesTableName(coll.metadata.ident)) {}

std::string DiscriminatorHook::BucketOf(const bson_t* doc) const {
  DiscriminatorConfig::Value value = config_.ValueOf(doc);
  if (!value.present) return "n";
  const TypeRule* rule = value.is_string ? config_.RuleFor(value.text) : nullptr;
  if (rule == nullptr) return "u";
  return "t" + rule->key + std::string(1, '\0');
}

Status DiscriminatorHook::Check(const bson_t* doc) const {
  DiscriminatorConfig::Value value = config_.ValueOf(doc);
  bson::BsonDoc details;
  bson_t* d = details.mutable_get();
  BSON_APPEND_UTF8(d, "operatorName", "discriminator");
  BSON_APPEND_UTF8(d, "field", config_.field().c_str());
  auto declared = [&] {
    bson_t types;
    BSON_APPEND_ARRAY_BEGIN(d, "declaredTypes", &types);
    int i = 0;
    for (const TypeRule& rule : config_.types()) {
      bson_append_utf8(&types, std::to_string(i++).c_str(), -1, rule.key.c_str(), -1);
    }
    bson_append_array_end(d, &types);
  };
  std::string names;
  for (const TypeRule& rule : config_.types()) names += (names.empty() ? "" : ", ") + rule.key;
  if (!value.present) {
    if (!config_.required()) return Status::OK();
    BSON_APPEND_UTF8(d, "reason", "field is missing");
    declared();
    return Failure(doc, "Document failed validation: the discriminator field '" + config_.field() +
                            "' is missing; declared types: " + names, details.get());
  }
  const TypeRule* rule = value.is_string ? config_.RuleFor(value.text) : nullptr;
  if (rule == nullptr) {
    BSON_APPEND_UTF8(d, "value", value.text.c_str());
    BSON_APPEND_UTF8(d, "reason", value.is_string ? "no declared type covers the value"
                                                  : "the value is not a string");
    declared();
    return Failure(doc, "Document failed validation: " + config_.field() + " \"" + value.text +
                            "\" is not a declared type; declared types: " + names +
                            " (add it with collMod)", details.get());
  }
  if (rule->compiled && !rule->compiled->Matches(doc)) {
    // errInfo.details: the validator's own explanation, in MongoDB's shape
    // (what tools expect of a 121); errInfo.discriminator: which type.
    BSON_APPEND_UTF8(d, "value", value.text.c_str());
    BSON_APPEND_UTF8(d, "type", rule->key.c_str());
    BSON_APPEND_DOCUMENT(d, "validator", rule->validator.get());
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> explained, rule->compiled->Explain(doc));
    bson::BsonDoc validator_details;
    if (explained) validator_details = std::move(*explained);
    return Failure(doc, "Document failed validation: a document of type \"" + rule->key +
                            "\" must match " + bson::ToShellString(rule->validator.get()),
                   validator_details.get(), details.get());
  }
  return Status::OK();
}

Status DiscriminatorHook::BeforeStore(engine::HookContext&, const engine::WriteEvent& event,
                                      bson::BsonDoc*) {
  Status status = Check(event.after);
  if (status.ok()) return status;
  // validationLevel "moderate" (MongoDB's meaning): updates of documents
  // that already broke the rules are not checked.
  if (config_.moderate() && event.kind == engine::WriteKind::kUpdate && !Check(event.before).ok()) {
    return Status::OK();
  }
  return status;
}

std::string ShardBucketKey(const std::string& bucket, int shard) {
  std::string key = bucket;
  key.push_back(static_cast<char>((shard >> 8) & 0xff));
  key.push_back(static_cast<char>(shard & 0xff));
  return key;
}

Status DiscriminatorHook::Add(engine::HookContext& ctx, const bson_t* doc, int64_t count,
                              int64_t bytes) {
  ASSIGN_OR_RETURN(storage::ShardedRecordStore::Location where,
                   ctx.collection().store->LocationOf(doc));
  return AddToCountsRow(ctx.session(), table_,
                        ShardBucketKey(BucketOf(doc), where.shard) + static_cast<char>(ThreadStripe()),
                        Counts{count, bytes});
}

Status DiscriminatorHook::AfterStore(engine::HookContext& ctx, const engine::WriteEvent& event) {
  if (event.before) {
    RETURN_IF_ERROR(Add(ctx, event.before, -1, -static_cast<int64_t>(event.before->len)));
  }
  return Add(ctx, event.after, 1, static_cast<int64_t>(event.after->len));
}

Status DiscriminatorHook::AfterRemove(engine::HookContext& ctx, const engine::WriteEvent& event) {
  return Add(ctx, event.before, -1, -static_cast<int64_t>(event.before->len));
}

Status DiscriminatorHook::AppendStats(storage::Session& session, const catalog::CollectionEntry&,
                                      bson_t* out) {
  return AppendCounts(session, std::nullopt, out);
}

Status DiscriminatorHook::AppendShardStats(storage::Session& session,
                                           const catalog::CollectionEntry&, int shard,
                                           bson_t* out) {
  return AppendCounts(session, shard, out);
}

Status DiscriminatorHook::AppendCounts(storage::Session& session, std::optional<int> shard,
                                       bson_t* out) {
  BSON_APPEND_UTF8(out, "field", config_.field().c_str());
  RETURN_IF_ERROR(session.Begin());
  StatusWith<ShardBuckets> rows = ReadBuckets(session, table_);
  session.Rollback();
  RETURN_IF_ERROR(rows.status());
  StatusWith<std::map<std::string, Counts>> buckets = std::map<std::string, Counts>();
  for (const auto& [bucket_shard, counts] : rows.value()) {
    if (!shard || bucket_shard.second == *shard) buckets.value()[bucket_shard.first] += counts;
  }
  auto append = [](bson_t* parent, const char* name, const Counts& c) {
    bson_t sub;
    bson_append_document_begin(parent, name, -1, &sub);
    BSON_APPEND_INT64(&sub, "count", c.count);
    BSON_APPEND_INT64(&sub, "size", c.bytes);
    bson_append_document_end(parent, &sub);
  };
  bson_t types;
  BSON_APPEND_DOCUMENT_BEGIN(out, "types", &types);
  for (const TypeRule& rule : config_.types()) {
    auto it = buckets.value().find("t" + rule.key + std::string(1, '\0'));
    append(&types, rule.key.c_str(), it == buckets.value().end() ? Counts{} : it->second);
  }
  bson_append_document_end(out, &types);
  auto none = buckets.value().find("n");
  if (none != buckets.value().end() && none->second.count != 0) append(out, "untyped", none->second);
  auto unmatched = buckets.value().find("u");
  if (unmatched != buckets.value().end() && unmatched->second.count != 0) {
    append(out, "undeclared", unmatched->second);
  }
  return Status::OK();
}

void DiscriminatorHook::AppendExplain(const catalog::CollectionEntry&, bson_t* out) const {
  BSON_APPEND_UTF8(out, "field", config_.field().c_str());
  bson_t types;
  BSON_APPEND_ARRAY_BEGIN(out, "types", &types);
  int i = 0;
  for (const TypeRule& rule : config_.types()) {
    bson_append_utf8(&types, std::to_string(i++).c_str(), -1, rule.key.c_str(), -1);
  }
  bson_append_array_end(out, &types);
}

namespace {

// bucket -> counts, from the documents.
StatusWith<ShardBuckets> CountDocuments(storage::Session& session,
                                        const catalog::CollectionEntry& coll,
                                        const DiscriminatorHook& hook, bool check) {
  ShardBuckets out;
  RETURN_IF_ERROR(ForEachDocumentWithProgress(session, coll, "discriminator", [&](int shard, const bson_t* doc) -> Status {
    if (check) {
      Status broken = hook.Check(doc);
      if (!broken.ok()) {
        return Status(broken.code(),
                      "the new discriminator rules would make existing documents invalid "
                      "(first: " + broken.reason() +
                          "); fix or remove them, or use validationLevel: \"moderate\"",
                      broken.extra_bson());
      }
    }
    out[{hook.BucketOf(doc), shard}] += Counts{1, static_cast<int64_t>(doc->len)};
    return Status::OK();
  }));
  return out;
}

}  // namespace

Status RebuildTypes(storage::Session& session, const catalog::CollectionEntry& coll,
                    const DiscriminatorHook& hook, bool check) {
  const std::string table = TypesTableName(coll.metadata.ident);
  RETURN_IF_ERROR(session.CreateTable(table));
  ASSIGN_OR_RETURN(auto counts, CountDocuments(session, coll, hook, check));
  // One transaction: the table is small (a row per type and stripe).
  RETURN_IF_ERROR(session.Begin());
  auto body = [&]() -> Status {
    RETURN_IF_ERROR(session.RemoveAll(table));
    for (const auto& [bucket_shard, c] : counts) {
      RETURN_IF_ERROR(session.Put(table,
                                  ShardBucketKey(bucket_shard.first, bucket_shard.second) +
                                      static_cast<char>(0),
                                  EncodeCounts(c)));
    }
    return session.Put(table, kMarker, kMarkerValue);
  };
  Status status = body();
  if (!status.ok()) {
    session.Rollback();
    return status;
  }
  return session.Commit();
}

Status DiscriminatorHook::Validate(storage::Session& session, const catalog::CollectionEntry& coll,
                                   std::vector<std::string>* problems) {
  RETURN_IF_ERROR(session.Begin());
  StatusWith<ShardBuckets> actual = CountDocuments(session, coll, *this, false);
  StatusWith<ShardBuckets> kept = actual.ok() ? ReadBuckets(session, table_) : actual.status();
  session.Rollback();
  RETURN_IF_ERROR(kept.status());
  // (bucket, shard) -> (kept, actual)
  std::map<std::pair<std::string, int>, std::pair<Counts, Counts>> all;
  for (const auto& [b, c] : kept.value()) all[b].first = c;
  for (const auto& [b, c] : actual.value()) all[b].second = c;
  for (const auto& [bucket_shard, pair] : all) {
    const auto& [k, a] = pair;
    if (k.count == a.count && k.bytes == a.bytes) continue;
    const std::string& bucket = bucket_shard.first;
    std::string name = bucket[0] == 't' ? "type \"" + bucket.substr(1, bucket.size() - 2) + "\""
                       : bucket == "n" ? std::string("untyped documents")
                                       : std::string("undeclared types");
    problems->push_back(name + " in shard " + std::to_string(bucket_shard.second) + " of " +
                        coll.metadata.ns + ": counters say " +
                        std::to_string(k.count) + " documents, " + std::to_string(k.bytes) +
                        " bytes; the documents are " + std::to_string(a.count) + ", " +
                        std::to_string(a.bytes) + " bytes");
  }
  return Status::OK();
}

}  // namespace tigerdoc::patterns::discriminator
