#pragma once
// ActionSet: what a command needs to be allowed to run, as MongoDB's
// privilege actions (src/mongo/db/auth/action_type.h), in a bitmask the
// command table (wire/commands/command_registry.cc) declares per command.
//
// Database actions apply to the database the command runs on; cluster
// actions to the server. Two pseudo-actions describe commands that need no
// privilege: kNoAuth (runs before authentication: the handshake) and
// kAuthenticated (any authenticated user: sessions, getMore of one's own
// cursor). kUndeclared is the default of a table row that declares nothing:
// only `root` holds it, so a new command is closed until someone says what
// it needs.
//
// Thread-safety: values.

#include <cstdint>

namespace tigerdoc::wire::auth {

using ActionSet = uint64_t;

namespace action {
// Database actions.
inline constexpr ActionSet kFind = 1ull << 0;
inline constexpr ActionSet kInsert = 1ull << 1;
inline constexpr ActionSet kUpdate = 1ull << 2;
inline constexpr ActionSet kRemove = 1ull << 3;
inline constexpr ActionSet kCreateCollection = 1ull << 4;
inline constexpr ActionSet kCreateIndex = 1ull << 5;
inline constexpr ActionSet kDropCollection = 1ull << 6;
inline constexpr ActionSet kDropIndex = 1ull << 7;
inline constexpr ActionSet kDropDatabase = 1ull << 8;
inline constexpr ActionSet kCollMod = 1ull << 9;
inline constexpr ActionSet kCollStats = 1ull << 10;
inline constexpr ActionSet kDbStats = 1ull << 11;
inline constexpr ActionSet kListCollections = 1ull << 12;
inline constexpr ActionSet kListIndexes = 1ull << 13;
inline constexpr ActionSet kValidate = 1ull << 14;
inline constexpr ActionSet kCreateUser = 1ull << 15;
inline constexpr ActionSet kDropUser = 1ull << 16;
inline constexpr ActionSet kUpdateUser = 1ull << 17;  // changePassword, changeCustomData
inline constexpr ActionSet kGrantRole = 1ull << 18;
inline constexpr ActionSet kRevokeRole = 1ull << 19;
inline constexpr ActionSet kViewUser = 1ull << 20;
// Cluster actions.
inline constexpr ActionSet kServerStatus = 1ull << 32;
inline constexpr ActionSet kListDatabases = 1ull << 33;
inline constexpr ActionSet kInprog = 1ull << 34;
inline constexpr ActionSet kKillop = 1ull << 35;
inline constexpr ActionSet kGetCmdLineOpts = 1ull << 36;
inline constexpr ActionSet kGetParameter = 1ull << 37;
inline constexpr ActionSet kSetParameter = 1ull << 38;
inline constexpr ActionSet kGetLog = 1ull << 39;
inline constexpr ActionSet kHostInfo = 1ull << 40;
// Pseudo-actions.
inline constexpr ActionSet kNoAuth = 1ull << 61;
inline constexpr ActionSet kAuthenticated = 1ull << 62;
inline constexpr ActionSet kUndeclared = 1ull << 63;

inline constexpr ActionSet kDatabaseActions = (1ull << 32) - 1;
inline constexpr ActionSet kClusterActions = ((1ull << 61) - 1) & ~kDatabaseActions;
}  // namespace action

}  // namespace tigerdoc::wire::auth
