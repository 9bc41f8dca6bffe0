#pragma once
// MongoDB's built-in roles and the actions each grants, on which databases.
//
//   role                  valid on   grants
//   read                  any db     find, listCollections, listIndexes, collStats, dbStats
//   readWrite             any db     read + insert, update, remove, create/drop collection/index
//   dbAdmin               any db     collMod, stats, list, create/drop collection/index,
//                                    dropDatabase, validate (no find)
//   userAdmin             any db     create/update/drop users, grant/revoke roles, view users
//   dbOwner               any db     readWrite + dbAdmin + userAdmin
//   readAnyDatabase       admin      read on every db, listDatabases
//   readWriteAnyDatabase  admin      readWrite on every db, listDatabases
//   userAdminAnyDatabase  admin      userAdmin on every db, listDatabases
//   dbAdminAnyDatabase    admin      dbAdmin on every db, listDatabases
//   clusterMonitor        admin      serverStatus, currentOp, getCmdLineOpts, getParameter,
//                                    getLog, hostInfo, listDatabases; collStats/dbStats anywhere
//   clusterAdmin          admin      clusterMonitor + killOp, setParameter, dropDatabase anywhere
//   root                  admin      everything
//
// Thread-safety: pure functions over constant tables.

#include <bson/bson.h>

#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "wire/auth/action.h"

namespace tigerdoc::wire::auth {

struct RoleName {
  std::string role;
  std::string db;
  bool operator==(const RoleName& other) const { return role == other.role && db == other.db; }
};

// A role as commands and user documents write it: "name" (a role of
// `default_db`) or {role: "name", db: "db"}. BadValue for anything else.
// REQUIRES: `value` is positioned on an element.
StatusWith<RoleName> ParseRoleName(const bson_iter_t* value, std::string_view default_db);

// The string field `key` of the document `value` points at; empty when
// absent or not a string.
std::string StringMember(const bson_iter_t* value, const char* key);

// Whether `role` is a built-in role that may be granted on `db` (the
// *AnyDatabase and cluster roles exist only on admin).
bool IsBuiltinRole(std::string_view role, std::string_view db);

// The actions `roles` grant on database `db` (database actions) and on the
// cluster (cluster actions), together.
ActionSet ActionsOn(const std::vector<RoleName>& roles, std::string_view db);

}  // namespace tigerdoc::wire::auth
