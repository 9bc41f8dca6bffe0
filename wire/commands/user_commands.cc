// User management: createUser, updateUser, dropUser,
// dropAllUsersFromDatabase, usersInfo, grantRolesToUser,
// revokeRolesFromUser. Users live in admin.system.users
// (wire/auth/user_store.h); a user is named by the database the command runs
// on and its name. Beyond its table row, granting or revoking a role needs
// grantRole/revokeRole on the role's database, as in MongoDB.

#include <algorithm>
#include <string>
#include <vector>

#include "engine/bson/shell_string.h"
#include "wire/auth/auth_manager.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

using auth::RoleName;
using auth::ScramMechanism;
using auth::UserDocument;

Status Missing(std::string_view command, std::string_view field) {
  return Status(ErrorCode::kLocation40414, "BSON field '" + std::string(command) + "." +
                                               std::string(field) +
                                               "' is missing but a required field");
}

// The user a command names in its first field.
StatusWith<std::string> UserArgument(CommandContext& ctx) {
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  if (!BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field '" + std::string(ctx.name) + "." + std::string(ctx.name) +
                      "' is the wrong type '" + std::string(BsonTypeName(bson_iter_type(&it))) +
                      "', expected type 'string'");
  }
  std::string user = bson_iter_utf8(&it, nullptr);
  if (user.empty()) return Status(ErrorCode::kBadValue, "User name must be non-empty");
  return user;
}

Status CheckUserDb(std::string_view db) {
  if (db == "local") return Status(ErrorCode::kBadValue, "Cannot create users in the local database");
  if (db == "$external") {
    return Status(ErrorCode::kBadValue, "SCRAM users cannot be created in the $external database");
  }
  return Status::OK();
}

// roles: ["read", {role: "readWrite", db: "other"}, ...]; a bare name is a
// role of the command's database. RoleNotFound (31) for a role that is not
// built in.
StatusWith<std::vector<RoleName>> ParseRoles(CommandContext& ctx, const bson_t* roles) {
  std::vector<RoleName> out;
  bson_iter_t it;
  bson_iter_init(&it, roles);
  while (bson_iter_next(&it)) {
    ASSIGN_OR_RETURN(RoleName role, auth::ParseRoleName(&it, ctx.db()));
    if (!auth::IsBuiltinRole(role.role, role.db)) {
      return Status(ErrorCode::kRoleNotFound, "Could not find role: " + role.role + "@" + role.db);
    }
    if (std::find(out.begin(), out.end(), role) == out.end()) out.push_back(std::move(role));
  }
  return out;
}

StatusWith<std::optional<std::vector<RoleName>>> RolesArgument(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> roles, GetArray(ctx.body(), ctx.name, "roles"));
  if (!roles) return std::optional<std::vector<RoleName>>();
  ASSIGN_OR_RETURN(std::vector<RoleName> parsed, ParseRoles(ctx, roles->get()));
  return std::optional<std::vector<RoleName>>(std::move(parsed));
}

// Granting or revoking a role needs `action` on the role's database.
Status CheckRoleActions(CommandContext& ctx, const std::vector<RoleName>& roles,
                        auth::ActionSet action) {
  for (const RoleName& role : roles) {
    if (!ctx.auth->Allowed(*ctx.session, role.db, action)) {
      return Status(ErrorCode::kUnauthorized,
                    "not authorized on " + role.db + " to execute command " +
                        bson::ToShellString(ctx.body()));
    }
  }
  return Status::OK();
}

// mechanisms: a non-empty subset of SCRAM-SHA-1 and SCRAM-SHA-256; both
// when absent.
StatusWith<std::vector<ScramMechanism>> MechanismsArgument(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> given, GetArray(ctx.body(), ctx.name, "mechanisms"));
  if (!given) return std::vector<ScramMechanism>{ScramMechanism::kSha1, ScramMechanism::kSha256};
  std::vector<ScramMechanism> out;
  bson_iter_t it;
  bson_iter_init(&it, given->get());
  while (bson_iter_next(&it)) {
    std::optional<ScramMechanism> mechanism;
    if (BSON_ITER_HOLDS_UTF8(&it)) mechanism = auth::ParseMechanism(bson_iter_utf8(&it, nullptr));
    if (!mechanism) {
      return Status(ErrorCode::kBadValue,
                    "Unknown auth mechanism '" + bson::ToShellString(&it) + "'");
    }
    if (std::find(out.begin(), out.end(), *mechanism) == out.end()) out.push_back(*mechanism);
  }
  if (out.empty()) return Status(ErrorCode::kBadValue, "mechanisms field must not be empty");
  return out;
}

// The credentials of `password` for each mechanism. digestPassword: false
// means the client sent MongoDB's SHA-1 digest instead of the password,
// which SCRAM-SHA-256 cannot use.
Status SetCredentials(CommandContext& ctx, UserDocument* user, const std::string& password,
                      const std::vector<ScramMechanism>& mechanisms) {
  ASSIGN_OR_RETURN(std::optional<bool> digest, GetBool(ctx.body(), ctx.name, "digestPassword"));
  user->credentials.clear();
  for (ScramMechanism mechanism : mechanisms) {
    if (!digest.value_or(true)) {
      if (mechanism == ScramMechanism::kSha256) {
        return Status(ErrorCode::kBadValue, "Use of SCRAM-SHA-256 requires undigested passwords");
      }
      if (password.empty()) return Status(ErrorCode::kBadValue, "Password cannot be empty");
      user->credentials[mechanism] = auth::DeriveCredential(
          mechanism, password, auth::NewSalt(mechanism), auth::DefaultIterationCount(mechanism));
      continue;
    }
    ASSIGN_OR_RETURN(user->credentials[mechanism],
                     auth::MakeCredential(mechanism, user->user, password));
  }
  return Status::OK();
}

bson::BsonDoc Ok() { return bson::BsonDoc(); }

}  // namespace

StatusWith<bson::BsonDoc> RunCreateUser(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name,
                              {"pwd", "customData", "roles", "digestPassword", "mechanisms",
                               "authenticationRestrictions"}));
  ASSIGN_OR_RETURN(std::string name, UserArgument(ctx));
  RETURN_IF_ERROR(CheckUserDb(ctx.db()));
  ASSIGN_OR_RETURN(std::optional<std::string> password, GetString(ctx.body(), ctx.name, "pwd"));
  if (!password) return Status(ErrorCode::kBadValue, "Must provide a 'pwd' field for all user documents, except those with '$external' as the user's source db");
  ASSIGN_OR_RETURN(std::optional<std::vector<RoleName>> roles, RolesArgument(ctx));
  if (!roles) return Missing(ctx.name, "roles");
  RETURN_IF_ERROR(CheckRoleActions(ctx, *roles, auth::action::kGrantRole));
  ASSIGN_OR_RETURN(std::vector<ScramMechanism> mechanisms, MechanismsArgument(ctx));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> custom_data,
                   GetObject(ctx.body(), ctx.name, "customData"));

  UserDocument user;
  user.user = name;
  user.db = ctx.db();
  user.roles = std::move(*roles);
  if (custom_data) {
    user.custom_data = std::move(*custom_data);
    user.has_custom_data = true;
  }
  RETURN_IF_ERROR(SetCredentials(ctx, &user, *password, mechanisms));
  RETURN_IF_ERROR(ctx.auth->users().Insert(std::move(user)));
  return Ok();
}

StatusWith<bson::BsonDoc> RunUpdateUser(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name,
                              {"pwd", "customData", "roles", "digestPassword", "mechanisms",
                               "authenticationRestrictions"}));
  ASSIGN_OR_RETURN(std::string name, UserArgument(ctx));
  ASSIGN_OR_RETURN(std::optional<std::string> password, GetString(ctx.body(), ctx.name, "pwd"));
  ASSIGN_OR_RETURN(std::optional<std::vector<RoleName>> roles, RolesArgument(ctx));
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> custom_data,
                   GetObject(ctx.body(), ctx.name, "customData"));
  bson_iter_t it;
  const bool mechanisms_given = bson_iter_init_find(&it, ctx.body(), "mechanisms");
  if (!password && !roles && !custom_data && !mechanisms_given) {
    return Status(ErrorCode::kBadValue, "Must specify at least one field to update in updateUser");
  }
  if (mechanisms_given && !password) {
    return Status(ErrorCode::kBadValue,
                  "mechanisms field may only be specified with a new password");
  }
  ASSIGN_OR_RETURN(std::optional<UserDocument> found, ctx.auth->users().Find(ctx.db(), name));
  if (!found) {
    return Status(ErrorCode::kUserNotFound,
                  "Could not find user \"" + name + "\" for db \"" + ctx.db() + "\"");
  }
  UserDocument user = std::move(*found);
  if (roles) {
    RETURN_IF_ERROR(CheckRoleActions(ctx, user.roles, auth::action::kRevokeRole));
    RETURN_IF_ERROR(CheckRoleActions(ctx, *roles, auth::action::kGrantRole));
    user.roles = std::move(*roles);
  }
  if (custom_data) {
    user.custom_data = std::move(*custom_data);
    user.has_custom_data = true;
  }
  if (password) {
    ASSIGN_OR_RETURN(std::vector<ScramMechanism> mechanisms, MechanismsArgument(ctx));
    RETURN_IF_ERROR(SetCredentials(ctx, &user, *password, mechanisms));
  }
  RETURN_IF_ERROR(ctx.auth->users().Replace(user));
  return Ok();
}

StatusWith<bson::BsonDoc> RunDropUser(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {}));
  ASSIGN_OR_RETURN(std::string name, UserArgument(ctx));
  ASSIGN_OR_RETURN(bool removed, ctx.auth->users().Remove(ctx.db(), name));
  if (!removed) {
    return Status(ErrorCode::kUserNotFound, "User '" + name + "@" + ctx.db() + "' not found");
  }
  return Ok();
}

StatusWith<bson::BsonDoc> RunDropAllUsersFromDatabase(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {}));
  ASSIGN_OR_RETURN(int64_t removed, ctx.auth->users().RemoveAll(ctx.db()));
  bson::BsonDoc out;
  BSON_APPEND_INT64(out.mutable_get(), "n", removed);
  return out;
}

namespace {

StatusWith<bson::BsonDoc> ChangeRoles(CommandContext& ctx, bool grant) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"roles"}));
  ASSIGN_OR_RETURN(std::string name, UserArgument(ctx));
  ASSIGN_OR_RETURN(std::optional<std::vector<RoleName>> roles, RolesArgument(ctx));
  if (!roles) return Missing(ctx.name, "roles");
  RETURN_IF_ERROR(CheckRoleActions(ctx, *roles,
                                   grant ? auth::action::kGrantRole : auth::action::kRevokeRole));
  ASSIGN_OR_RETURN(std::optional<UserDocument> found, ctx.auth->users().Find(ctx.db(), name));
  if (!found) {
    return Status(ErrorCode::kUserNotFound,
                  "Could not find user \"" + name + "\" for db \"" + ctx.db() + "\"");
  }
  UserDocument user = std::move(*found);
  for (const RoleName& role : *roles) {
    auto at = std::find(user.roles.begin(), user.roles.end(), role);
    if (grant && at == user.roles.end()) user.roles.push_back(role);
    if (!grant && at != user.roles.end()) user.roles.erase(at);
  }
  RETURN_IF_ERROR(ctx.auth->users().Replace(user));
  return Ok();
}

// usersInfo's target: every user of the command's database, every user
// of every database, or named users.
struct UsersQuery {
  bool all_of_db = false;
  bool all_dbs = false;
  std::vector<std::pair<std::string, std::string>> names;  // (db, user)
};

StatusWith<UsersQuery> ParseUsersQuery(CommandContext& ctx) {
  UsersQuery query;
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  auto add_one = [&](bson_iter_t* value) -> Status {
    if (BSON_ITER_HOLDS_UTF8(value)) {
      query.names.emplace_back(ctx.db(), bson_iter_utf8(value, nullptr));
      return Status::OK();
    }
    if (BSON_ITER_HOLDS_DOCUMENT(value)) {
      const std::string user = auth::StringMember(value, "user");
      const std::string db = auth::StringMember(value, "db");
      if (!user.empty() && !db.empty()) {
        query.names.emplace_back(db, user);
        return Status::OK();
      }
    }
    return Status(ErrorCode::kBadValue,
                  "User name must be either a string or an object with 'user' and 'db' fields");
  };
  if (BSON_ITER_HOLDS_NUMBER(&it) && bson_iter_as_int64(&it) == 1) {
    query.all_of_db = true;
  } else if (BSON_ITER_HOLDS_DOCUMENT(&it)) {
    bson_iter_t field;
    if (bson_iter_recurse(&it, &field) && bson_iter_find(&field, "forAllDBs")) {
      query.all_dbs = bson_iter_as_bool(&field);
      if (!query.all_dbs) return Status(ErrorCode::kBadValue, "forAllDBs must be true");
    } else {
      RETURN_IF_ERROR(add_one(&it));
    }
  } else if (BSON_ITER_HOLDS_ARRAY(&it)) {
    bson_iter_t element;
    bson_iter_recurse(&it, &element);
    while (bson_iter_next(&element)) RETURN_IF_ERROR(add_one(&element));
  } else {
    RETURN_IF_ERROR(add_one(&it));
  }
  return query;
}

void AppendUser(const UserDocument& user, bool show_credentials, bson_t* array, size_t index) {
  bson::BsonDoc stored = user.ToBson();
  bson_t doc;
  const std::string key = std::to_string(index);
  bson_append_document_begin(array, key.c_str(), -1, &doc);
  bson_iter_t it;
  bson_iter_init(&it, stored.get());
  while (bson_iter_next(&it)) {
    if (!show_credentials && std::string_view(bson_iter_key(&it)) == "credentials") continue;
    bson_append_iter(&doc, nullptr, 0, &it);
  }
  bson_t mechanisms;
  bson_append_array_begin(&doc, "mechanisms", -1, &mechanisms);
  size_t i = 0;
  for (const auto& entry : user.credentials) {
    const std::string k = std::to_string(i++);
    const std::string name(auth::MechanismName(entry.first));
    BSON_APPEND_UTF8(&mechanisms, k.c_str(), name.c_str());
  }
  bson_append_array_end(&doc, &mechanisms);
  bson_append_document_end(array, &doc);
}

}  // namespace

StatusWith<bson::BsonDoc> RunGrantRolesToUser(CommandContext& ctx) { return ChangeRoles(ctx, true); }

StatusWith<bson::BsonDoc> RunRevokeRolesFromUser(CommandContext& ctx) {
  return ChangeRoles(ctx, false);
}

// Any authenticated user may look at itself; other users need viewUser on
// their database (on every database for forAllDBs).
StatusWith<bson::BsonDoc> RunUsersInfo(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name,
                              {"showCredentials", "showPrivileges", "showAuthenticationRestrictions",
                               "showCustomData", "filter"}));
  ASSIGN_OR_RETURN(std::optional<bool> show_credentials,
                   GetBool(ctx.body(), ctx.name, "showCredentials"));
  ASSIGN_OR_RETURN(UsersQuery query, ParseUsersQuery(ctx));
  const auth::AuthSession& session = *ctx.session;
  auto may_view = [&](const std::string& db, const std::string& user) {
    if (session.user && session.user->db == db && session.user->user == user) return true;
    return ctx.auth->Allowed(session, db, auth::action::kViewUser);
  };
  auto refuse = [&]() {
    return Status(ErrorCode::kUnauthorized, "not authorized on " + ctx.db() +
                                                " to execute command " +
                                                bson::ToShellString(ctx.body()));
  };
  std::vector<UserDocument> users;
  if (query.all_of_db || query.all_dbs) {
    const std::string db = query.all_dbs ? "" : ctx.db();
    if (!ctx.auth->Allowed(session, db, auth::action::kViewUser)) return refuse();
    ASSIGN_OR_RETURN(users, ctx.auth->users().List(db));
  } else {
    for (const auto& [db, name] : query.names) {
      if (!may_view(db, name)) return refuse();
      ASSIGN_OR_RETURN(std::optional<UserDocument> found, ctx.auth->users().Find(db, name));
      if (found) users.push_back(std::move(*found));
    }
  }
  bson::BsonDoc out;
  bson_t array;
  bson_append_array_begin(out.mutable_get(), "users", -1, &array);
  for (size_t i = 0; i < users.size(); ++i) {
    AppendUser(users[i], show_credentials.value_or(false), &array, i);
  }
  bson_append_array_end(out.mutable_get(), &array);
  return out;
}

}  // namespace tigerdoc::wire
