#include "wire/auth/user_store.h"

#include "engine/engine.h"
#include "wire/auth/random_uuid.h"

namespace tigerdoc::wire::auth {
namespace {

// MongoDB's code for createUser of an existing user (no name in
// error_codes.yml, hence its "Location" codeName).
constexpr ErrorCode kUserAlreadyExists = static_cast<ErrorCode>(51003);

Status Inconsistent(const std::string& what) {
  return Status(ErrorCode::kUserDataInconsistent, "Invalid user document: " + what);
}

std::optional<std::string> Utf8Field(const bson_t* doc, const char* name) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc, name) || !BSON_ITER_HOLDS_UTF8(&it)) return std::nullopt;
  return std::string(bson_iter_utf8(&it, nullptr));
}

StatusWith<ScramCredential> CredentialFromBson(const bson_t* doc) {
  bson_iter_t it;
  ScramCredential out;
  if (!bson_iter_init_find(&it, doc, "iterationCount") || !BSON_ITER_HOLDS_NUMBER(&it)) {
    return Inconsistent("iterationCount");
  }
  out.iteration_count = static_cast<int>(bson_iter_as_int64(&it));
  auto salt = Utf8Field(doc, "salt");
  auto stored = Utf8Field(doc, "storedKey");
  auto server = Utf8Field(doc, "serverKey");
  if (!salt || !stored || !server) return Inconsistent("credential keys");
  auto s = Base64Decode(*salt);
  auto st = Base64Decode(*stored);
  auto sv = Base64Decode(*server);
  if (!s.ok() || !st.ok() || !sv.ok()) return Inconsistent("credential base64");
  out.salt = std::move(s).value();
  out.stored_key = std::move(st).value();
  out.server_key = std::move(sv).value();
  return out;
}

bson::BsonDoc IdQuery(std::string_view db, std::string_view user) {
  bson::BsonDoc query;
  const std::string id = std::string(db) + "." + std::string(user);
  BSON_APPEND_UTF8(query.mutable_get(), "_id", id.c_str());
  return query;
}

}  // namespace

bson::BsonDoc UserDocument::ToBson() const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "_id", id().c_str());
  bson_iter_t it;
  if (bson_iter_init(&it, user_id.get()) && bson_iter_next(&it)) {
    bson_append_iter(doc, "userId", -1, &it);
  }
  BSON_APPEND_UTF8(doc, "user", user.c_str());
  BSON_APPEND_UTF8(doc, "db", db.c_str());
  bson_t creds, roles_array;
  bson_append_document_begin(doc, "credentials", -1, &creds);
  for (const auto& [mechanism, credential] : credentials) {
    bson_t c;
    const std::string name(MechanismName(mechanism));
    bson_append_document_begin(&creds, name.c_str(), -1, &c);
    BSON_APPEND_INT32(&c, "iterationCount", credential.iteration_count);
    BSON_APPEND_UTF8(&c, "salt", Base64Encode(credential.salt).c_str());
    BSON_APPEND_UTF8(&c, "storedKey", Base64Encode(credential.stored_key).c_str());
    BSON_APPEND_UTF8(&c, "serverKey", Base64Encode(credential.server_key).c_str());
    bson_append_document_end(&creds, &c);
  }
  bson_append_document_end(doc, &creds);
  bson_append_array_begin(doc, "roles", -1, &roles_array);
  for (size_t i = 0; i < roles.size(); ++i) {
    bson_t r;
    const std::string key = std::to_string(i);
    bson_append_document_begin(&roles_array, key.c_str(), -1, &r);
    BSON_APPEND_UTF8(&r, "role", roles[i].role.c_str());
    BSON_APPEND_UTF8(&r, "db", roles[i].db.c_str());
    bson_append_document_end(&roles_array, &r);
  }
  bson_append_array_end(doc, &roles_array);
  if (has_custom_data) BSON_APPEND_DOCUMENT(doc, "customData", custom_data.get());
  return out;
}

StatusWith<UserDocument> UserDocument::FromBson(const bson_t* doc) {
  UserDocument out;
  auto user = Utf8Field(doc, "user");
  auto db = Utf8Field(doc, "db");
  if (!user || !db) return Inconsistent("user/db");
  out.user = *user;
  out.db = *db;
  bson_iter_t it, child;
  if (bson_iter_init_find(&it, doc, "userId")) {
    bson_append_iter(out.user_id.mutable_get(), "", 0, &it);
  }
  if (bson_iter_init_find(&it, doc, "credentials") && BSON_ITER_HOLDS_DOCUMENT(&it) &&
      bson_iter_recurse(&it, &child)) {
    while (bson_iter_next(&child)) {
      auto mechanism = ParseMechanism(bson_iter_key(&child));
      if (!mechanism || !BSON_ITER_HOLDS_DOCUMENT(&child)) continue;
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&child, &len, &data);
      bson_t cred;
      if (!bson_init_static(&cred, data, len)) return Inconsistent("credentials");
      ASSIGN_OR_RETURN(out.credentials[*mechanism], CredentialFromBson(&cred));
    }
  }
  if (bson_iter_init_find(&it, doc, "roles") && BSON_ITER_HOLDS_ARRAY(&it) &&
      bson_iter_recurse(&it, &child)) {
    while (bson_iter_next(&child)) {
      StatusWith<RoleName> role = ParseRoleName(&child, "");
      if (!role.ok()) return Inconsistent("roles");
      out.roles.push_back(std::move(role).value());
    }
  }
  if (bson_iter_init_find(&it, doc, "customData") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
    uint32_t len = 0;
    const uint8_t* data = nullptr;
    bson_iter_document(&it, &len, &data);
    out.custom_data = bson::BsonDoc::CopyOf(data, len);
    out.has_custom_data = true;
  }
  return out;
}

StatusWith<std::optional<UserDocument>> UserStore::Find(std::string_view db,
                                                         std::string_view user) {
  engine::FindParams params;
  params.db = kUsersDb;
  params.coll = kUsersCollection;
  params.filter = IdQuery(db, user);
  params.limit = 1;
  params.single_batch = true;
  StatusWith<engine::CursorBatch> batch = engine_->Find(params);
  if (!batch.ok()) return batch.status();
  if (batch.value().docs.empty()) return std::optional<UserDocument>();
  ASSIGN_OR_RETURN(UserDocument found, UserDocument::FromBson(batch.value().docs[0].get()));
  return std::optional<UserDocument>(std::move(found));
}

StatusWith<std::vector<UserDocument>> UserStore::List(std::string_view db) {
  engine::FindParams params;
  params.db = kUsersDb;
  params.coll = kUsersCollection;
  if (!db.empty()) BSON_APPEND_UTF8(params.filter.mutable_get(), "db", std::string(db).c_str());
  BSON_APPEND_INT32(params.sort.mutable_get(), "_id", 1);
  params.single_batch = true;
  params.batch_size = INT32_MAX;
  StatusWith<engine::CursorBatch> batch = engine_->Find(params);
  if (!batch.ok()) return batch.status();
  std::vector<UserDocument> out;
  for (const bson::BsonDoc& doc : batch.value().docs) {
    ASSIGN_OR_RETURN(UserDocument user, UserDocument::FromBson(doc.get()));
    out.push_back(std::move(user));
  }
  return out;
}

Status UserStore::Insert(UserDocument user) {
  if (user.user_id.empty()) {
    const std::array<uint8_t, 16> uuid = RandomUuid();
    bson_append_binary(user.user_id.mutable_get(), "", 0, BSON_SUBTYPE_UUID, uuid.data(), uuid.size());
  }
  std::vector<bson::BsonDoc> docs;
  docs.push_back(user.ToBson());
  StatusWith<std::vector<Status>> result =
      engine_->InsertMany(kUsersDb, kUsersCollection, std::move(docs), /*ordered=*/true);
  Changed();
  if (!result.ok()) return result.status();
  if (!result.value().empty() && !result.value()[0].ok()) {
    if (result.value()[0].code() == ErrorCode::kDuplicateKey) {
      return Status(kUserAlreadyExists,
                    "User \"" + user.user + "@" + user.db + "\" already exists");
    }
    return result.value()[0];
  }
  return Status::OK();
}

Status UserStore::Replace(const UserDocument& user) {
  engine::UpdateStatement statement;
  statement.query = IdQuery(user.db, user.user);
  statement.update = user.ToBson();
  StatusWith<engine::UpdateResult> result =
      engine_->Update(kUsersDb, kUsersCollection, statement);
  Changed();
  if (!result.ok()) return result.status();
  if (result.value().matched == 0) {
    return Status(ErrorCode::kUserNotFound, "User " + user.user + "@" + user.db + " not found");
  }
  return Status::OK();
}

StatusWith<bool> UserStore::Remove(std::string_view db, std::string_view user) {
  engine::DeleteStatement statement;
  statement.query = IdQuery(db, user);
  statement.limit = 1;
  StatusWith<engine::DeleteResult> result = engine_->Delete(kUsersDb, kUsersCollection, statement);
  Changed();
  if (!result.ok()) return result.status();
  return result.value().deleted > 0;
}

StatusWith<int64_t> UserStore::RemoveAll(std::string_view db) {
  engine::DeleteStatement statement;
  BSON_APPEND_UTF8(statement.query.mutable_get(), "db", std::string(db).c_str());
  StatusWith<engine::DeleteResult> result = engine_->Delete(kUsersDb, kUsersCollection, statement);
  Changed();
  if (!result.ok()) return result.status();
  return result.value().deleted;
}

bool UserStore::HasUsers() {
  const int known = has_users_.load(std::memory_order_acquire);
  if (known >= 0) return known == 1;
  engine::FindParams params;
  params.db = kUsersDb;
  params.coll = kUsersCollection;
  params.limit = 1;
  params.single_batch = true;
  StatusWith<engine::CursorBatch> batch = engine_->Find(params);
  // A read that fails must not open the localhost exception.
  const bool has = !batch.ok() || !batch.value().docs.empty();
  if (batch.ok()) has_users_.store(has ? 1 : 0, std::memory_order_release);
  return has;
}

void UserStore::Changed() {
  has_users_.store(-1, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
}

}  // namespace tigerdoc::wire::auth
