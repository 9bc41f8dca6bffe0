#include "wire/auth/roles.h"

#include <array>

namespace tigerdoc::wire::auth {
namespace {

using namespace action;

constexpr ActionSet kReadActions = kFind | kListCollections | kListIndexes | kCollStats | kDbStats;
constexpr ActionSet kReadWriteActions = kReadActions | kInsert | kUpdate | kRemove |
                                        kCreateCollection | kCreateIndex | kDropCollection |
                                        kDropIndex;
constexpr ActionSet kDbAdminActions = kCollMod | kCollStats | kDbStats | kListCollections |
                                      kListIndexes | kCreateCollection | kCreateIndex |
                                      kDropCollection | kDropIndex | kDropDatabase | kValidate;
constexpr ActionSet kUserAdminActions =
    kCreateUser | kDropUser | kUpdateUser | kGrantRole | kRevokeRole | kViewUser;
constexpr ActionSet kClusterMonitorActions = kServerStatus | kListDatabases | kInprog |
                                             kGetCmdLineOpts | kGetParameter | kGetLog | kHostInfo;

struct BuiltinRole {
  std::string_view name;
  bool admin_only;        // exists only as <name>@admin
  ActionSet on_own_db;    // on the database the role is granted on
  ActionSet on_every_db;  // database actions everywhere, plus cluster actions
};

constexpr std::array kRoles = {
    BuiltinRole{"clusterAdmin", true, 0,
                kClusterMonitorActions | kKillop | kSetParameter | kCollStats | kDbStats |
                    kDropDatabase},
    BuiltinRole{"clusterMonitor", true, 0, kClusterMonitorActions | kCollStats | kDbStats},
    BuiltinRole{"dbAdmin", false, kDbAdminActions, 0},
    BuiltinRole{"dbAdminAnyDatabase", true, 0, kDbAdminActions | kListDatabases},
    BuiltinRole{"dbOwner", false, kReadWriteActions | kDbAdminActions | kUserAdminActions, 0},
    BuiltinRole{"read", false, kReadActions, 0},
    BuiltinRole{"readAnyDatabase", true, 0, kReadActions | kListDatabases},
    BuiltinRole{"readWrite", false, kReadWriteActions, 0},
    BuiltinRole{"readWriteAnyDatabase", true, 0, kReadWriteActions | kListDatabases},
    BuiltinRole{"root", true, 0, ~ActionSet{0}},
    BuiltinRole{"userAdmin", false, kUserAdminActions, 0},
    BuiltinRole{"userAdminAnyDatabase", true, 0, kUserAdminActions | kListDatabases},
};

const BuiltinRole* Find(std::string_view name) {
  for (const BuiltinRole& role : kRoles) {
    if (role.name == name) return &role;
  }
  return nullptr;
}

}  // namespace

std::string StringMember(const bson_iter_t* value, const char* key) {
  bson_iter_t child;
  if (!BSON_ITER_HOLDS_DOCUMENT(value) || !bson_iter_recurse(value, &child) ||
      !bson_iter_find(&child, key) || !BSON_ITER_HOLDS_UTF8(&child)) {
    return "";
  }
  return bson_iter_utf8(&child, nullptr);
}

StatusWith<RoleName> ParseRoleName(const bson_iter_t* value, std::string_view default_db) {
  RoleName role;
  if (BSON_ITER_HOLDS_UTF8(value)) {
    role.role = bson_iter_utf8(value, nullptr);
    role.db = std::string(default_db);
  } else if (BSON_ITER_HOLDS_DOCUMENT(value)) {
    role.role = StringMember(value, "role");
    role.db = StringMember(value, "db");
    if (role.role.empty() || role.db.empty()) {
      return Status(ErrorCode::kBadValue,
                    "Role document must have non-empty string fields 'role' and 'db'");
    }
  } else {
    return Status(ErrorCode::kBadValue, "Role names must be either strings or objects");
  }
  return role;
}

bool IsBuiltinRole(std::string_view role, std::string_view db) {
  const BuiltinRole* found = Find(role);
  return found != nullptr && (!found->admin_only || db == "admin");
}

ActionSet ActionsOn(const std::vector<RoleName>& roles, std::string_view db) {
  ActionSet granted = 0;
  for (const RoleName& name : roles) {
    const BuiltinRole* role = Find(name.role);
    if (role == nullptr || (role->admin_only && name.db != "admin")) continue;
    granted |= role->on_every_db;
    if (name.db == db) granted |= role->on_own_db;
  }
  return granted;
}

}  // namespace tigerdoc::wire::auth
