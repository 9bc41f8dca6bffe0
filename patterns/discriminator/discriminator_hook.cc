#include "patterns/discriminator/discriminator_hook.h"

#include <atomic>
#include <map>

#include "engine/bson/shell_string.h"
#include "patterns/common/counts.h"

namespace tigerdoc::patterns::discriminator {
namespace {

constexpr char kMarker[] = "m";

// bucket ("t<key>\0", "n", "u") -> summed counts, from the table.
StatusWith<std::map<std::string, Counts>> ReadBuckets(storage::Session& session,
                                                      const std::string& table) {
  std::map<std::string, Counts> out;
  ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, "", ""));
  Status status;
  while (cursor.Next(&status)) {
    std::string_view key = cursor.key();
    if (key == kMarker || key.empty()) continue;
    ASSIGN_OR_RETURN(Counts c, DecodeCounts(cursor.value()));
    out[std::string(key.substr(0, key.size() - 1))] += c;  // without the stripe
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
      BSON_APPEND_UTF8(&types, std::to_string(i++).c_str(), rule.key.c_str());
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

Status DiscriminatorHook::Add(storage::Session& session, const std::string& bucket,
                              int64_t count, int64_t bytes) {
  return AddToCountsRow(session, table_, bucket + static_cast<char>(ThreadStripe()),
                        Counts{count, bytes});
}

Status DiscriminatorHook::AfterStore(engine::HookContext& ctx, const engine::WriteEvent& event) {
  if (event.before) {
    RETURN_IF_ERROR(Add(ctx.session(), BucketOf(event.before), -1,
                        -static_cast<int64_t>(event.before->len)));
  }
  return Add(ctx.session(), BucketOf(event.after), 1, static_cast<int64_t>(event.after->len));
}

Status DiscriminatorHook::AfterRemove(engine::HookContext& ctx, const engine::WriteEvent& event) {
  return Add(ctx.session(), BucketOf(event.before), -1, -static_cast<int64_t>(event.before->len));
}

Status DiscriminatorHook::AppendStats(storage::Session& session, const catalog::CollectionEntry&,
                                      bson_t* out) {
  BSON_APPEND_UTF8(out, "field", config_.field().c_str());
  RETURN_IF_ERROR(session.Begin());
  StatusWith<std::map<std::string, Counts>> buckets = ReadBuckets(session, table_);
  session.Rollback();
  RETURN_IF_ERROR(buckets.status());
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
    BSON_APPEND_UTF8(&types, std::to_string(i++).c_str(), rule.key.c_str());
  }
  bson_append_array_end(out, &types);
}

namespace {

// bucket -> counts, from the documents.
StatusWith<std::map<std::string, Counts>> CountDocuments(storage::Session& session,
                                                         const catalog::CollectionEntry& coll,
                                                         const DiscriminatorHook& hook,
                                                         bool check) {
  std::map<std::string, Counts> out;
  RETURN_IF_ERROR(coll.store->ForEachDocument(session, [&](int, const bson_t* doc) -> Status {
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
    out[hook.BucketOf(doc)] += Counts{1, static_cast<int64_t>(doc->len)};
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
    std::vector<std::string> old_keys;
    {
      ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, "", ""));
      Status status;
      while (cursor.Next(&status)) old_keys.emplace_back(cursor.key());
      RETURN_IF_ERROR(status);
    }
    for (const std::string& key : old_keys) RETURN_IF_ERROR(session.Remove(table, key));
    for (const auto& [bucket, c] : counts) {
      RETURN_IF_ERROR(session.Put(table, bucket + static_cast<char>(0), EncodeCounts(c)));
    }
    return session.Put(table, kMarker, "\x01");
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
  StatusWith<std::map<std::string, Counts>> actual = CountDocuments(session, coll, *this, false);
  StatusWith<std::map<std::string, Counts>> kept =
      actual.ok() ? ReadBuckets(session, table_) : actual.status();
  session.Rollback();
  RETURN_IF_ERROR(kept.status());
  std::map<std::string, std::pair<Counts, Counts>> all;  // bucket -> (kept, actual)
  for (const auto& [b, c] : kept.value()) all[b].first = c;
  for (const auto& [b, c] : actual.value()) all[b].second = c;
  for (const auto& [bucket, pair] : all) {
    const auto& [k, a] = pair;
    if (k.count == a.count && k.bytes == a.bytes) continue;
    std::string name = bucket[0] == 't' ? "type \"" + bucket.substr(1, bucket.size() - 2) + "\""
                       : bucket == "n" ? std::string("untyped documents")
                                       : std::string("undeclared types");
    problems->push_back(name + " of " + coll.metadata.ns + ": counters say " +
                        std::to_string(k.count) + " documents, " + std::to_string(k.bytes) +
                        " bytes; the documents are " + std::to_string(a.count) + ", " +
                        std::to_string(a.bytes) + " bytes");
  }
  return Status::OK();
}

}  // namespace tigerdoc::patterns::discriminator
