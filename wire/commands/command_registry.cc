#include "wire/commands/command_registry.h"
#include "wire/commands/profiler.h"

#include <algorithm>
#include <array>

namespace tigerdoc::wire {
namespace {

using namespace auth::action;

// Sorted by name (std::string_view order), checked at first use. Columns: name,
// handler, admin database only, the actions a user needs (wire/auth/action.h;
// kNoAuth: allowed before authentication).
constexpr std::array kCommands = {
    CommandSpec{"abortTransaction", RunAbortTransaction, true, kAuthenticated},
    CommandSpec{"aggregate", RunAggregate, false, kFind},
    CommandSpec{"archive", RunArchive, false, kFind | kInsert | kRemove | kCreateCollection},
    CommandSpec{"buildInfo", RunBuildInfo, false, kNoAuth},
    CommandSpec{"buildinfo", RunBuildInfo, false, kNoAuth},
    CommandSpec{"collMod", RunCollMod, false, kCollMod},
    CommandSpec{"collStats", RunCollStats, false, kCollStats},
    CommandSpec{"commitTransaction", RunCommitTransaction, true, kAuthenticated},
    CommandSpec{"connectionStatus", RunConnectionStatus, false, kNoAuth},
    CommandSpec{"convertToCapped", RunConvertToCapped, false,
                kFind | kInsert | kCreateCollection | kDropCollection},
    CommandSpec{"count", RunCount, false, kFind},
    CommandSpec{"create", RunCreate, false, kCreateCollection},
    CommandSpec{"createIndexes", RunCreateIndexes, false, kCreateIndex},
    CommandSpec{"createUser", RunCreateUser, false, kCreateUser},
    CommandSpec{"currentOp", RunCurrentOp, true, kInprog},
    CommandSpec{"dbStats", RunDbStats, false, kDbStats},
    CommandSpec{"dbstats", RunDbStats, false, kDbStats},
    CommandSpec{"delete", RunDelete, false, kRemove},
    CommandSpec{"distinct", RunDistinct, false, kFind},
    CommandSpec{"drop", RunDrop, false, kDropCollection},
    CommandSpec{"dropAllUsersFromDatabase", RunDropAllUsersFromDatabase, false, kDropUser},
    CommandSpec{"dropDatabase", RunDropDatabase, false, kDropDatabase},
    CommandSpec{"dropIndexes", RunDropIndexes, false, kDropIndex},
    CommandSpec{"dropUser", RunDropUser, false, kDropUser},
    CommandSpec{"endSessions", RunEndSessions, false, kAuthenticated},
    CommandSpec{"explain", RunExplain, false, kFind},
    CommandSpec{"find", RunFind, false, kFind},
    CommandSpec{"findAndModify", RunFindAndModify, false, kFind | kUpdate | kRemove | kInsert},
    CommandSpec{"findandmodify", RunFindAndModify, false, kFind | kUpdate | kRemove | kInsert},
    CommandSpec{"getCmdLineOpts", RunGetCmdLineOpts, true, kGetCmdLineOpts},
    CommandSpec{"getLog", RunGetLog, true, kGetLog},
    CommandSpec{"getMore", RunGetMore, false, kAuthenticated},
    CommandSpec{"getParameter", RunGetParameter, true, kGetParameter},
    CommandSpec{"getnonce", RunGetNonce, false, kNoAuth},
    CommandSpec{"grantRolesToUser", RunGrantRolesToUser, false, kGrantRole},
    CommandSpec{"hello", RunHello, false, kNoAuth},
    CommandSpec{"hostInfo", RunHostInfo, false, kHostInfo},
    CommandSpec{"insert", RunInsert, false, kInsert},
    CommandSpec{"isMaster", RunHello, false, kNoAuth},
    CommandSpec{"ismaster", RunHello, false, kNoAuth},
    // killAllSessions: MongoDB's killAnySession, a clusterAdmin action as killop is.
    CommandSpec{"killAllSessions", RunKillAllSessions, false, kKillop},
    CommandSpec{"killCursors", RunKillCursors, false, kAuthenticated},
    CommandSpec{"killOp", RunKillOp, true, kKillop},
    CommandSpec{"killSessions", RunKillSessions, false, kAuthenticated},
    CommandSpec{"listCollections", RunListCollections, false, kListCollections},
    CommandSpec{"listDatabases", RunListDatabases, true, kAuthenticated},
    CommandSpec{"listIndexes", RunListIndexes, false, kListIndexes},
    CommandSpec{"logRotate", RunLogRotate, true, kUndeclared},
    CommandSpec{"logout", RunLogout, false, kNoAuth},
    CommandSpec{"ping", RunPing, false, kNoAuth},
    // profile: mongod's enableProfiler action (dbAdmin); tigerdoc has no such
    // action yet, so root only.
    CommandSpec{"profile", RunProfile, false, kUndeclared},
    CommandSpec{"refreshSessions", RunRefreshSessions, false, kAuthenticated},
    // replSetGetConfig/Status: cluster actions clusterMonitor holds, as serverStatus.
    CommandSpec{"renameCollection", RunRenameCollection, true, kUndeclared},
    CommandSpec{"replSetGetConfig", RunReplSetGetConfig, true, kServerStatus},
    CommandSpec{"replSetGetStatus", RunReplSetGetStatus, true, kServerStatus},
    CommandSpec{"replSetInitiate", RunReplSetInitiate, true, kUndeclared},
    CommandSpec{"resyncSubset", RunPatternCommand, false, kFind | kUpdate},
    CommandSpec{"revokeRolesFromUser", RunRevokeRolesFromUser, false, kRevokeRole},
    CommandSpec{"saslContinue", RunSaslContinue, false, kNoAuth},
    CommandSpec{"saslStart", RunSaslStart, false, kNoAuth},
    CommandSpec{"serverStatus", RunServerStatus, false, kServerStatus},
    CommandSpec{"setParameter", RunSetParameter, true, kSetParameter},
    CommandSpec{"startSession", RunStartSession, false, kAuthenticated},
    // top: MongoDB's `top` cluster action, held by clusterMonitor as serverStatus is.
    CommandSpec{"top", RunTop, true, kServerStatus},
    CommandSpec{"update", RunUpdate, false, kUpdate | kInsert},
    CommandSpec{"updateUser", RunUpdateUser, false, kUpdateUser},
    CommandSpec{"usersInfo", RunUsersInfo, false, kAuthenticated},
    CommandSpec{"validate", RunValidate, false, kValidate},
    CommandSpec{"whatsmyuri", RunWhatsMyUri, false, kAuthenticated},
};

bool IsSorted() {
  return std::is_sorted(kCommands.begin(), kCommands.end(),
                        [](const CommandSpec& a, const CommandSpec& b) { return a.name < b.name; });
}

}  // namespace

const CommandSpec* FindCommand(std::string_view name) {
  static const bool sorted = IsSorted();
  INVARIANT(sorted);
  auto it = std::lower_bound(kCommands.begin(), kCommands.end(), name,
                             [](const CommandSpec& spec, std::string_view n) { return spec.name < n; });
  if (it == kCommands.end() || it->name != name) return nullptr;
  return &*it;
}

auth::ActionSet DeclaredActions(std::string_view name) {
  const CommandSpec* spec = FindCommand(name);
  return spec == nullptr ? 0 : spec->actions;
}

}  // namespace tigerdoc::wire
