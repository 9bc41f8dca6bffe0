#include "wire/commands/command_registry.h"
#include "wire/commands/profiler.h"

#include <algorithm>
#include <array>
#include <utility>

namespace tigerdoc::wire {
namespace {

using namespace auth::action;
using K = CommandKind;
using Op = LogicalOp;
using Lock = CollectionLock;

// Sorted by name (std::string_view order), checked at first use. Columns: name,
// handler, admin database only, the actions a user needs (wire/auth/action.h;
// kNoAuth: allowed before authentication), and the command's traits
// (command.h: read/write kind, logical op, collection lock, retryable,
// allowed in transactions, DDL, compressible reply, secret field), which every
// other part of the server reads from here rather than from lists of names.
constexpr std::array kCommands = {
    CommandSpec{"abortTransaction", RunAbortTransaction, true, kAuthenticated,
                {.in_transaction = true}},
    CommandSpec{"aggregate", RunAggregate, false, kFind,
                {.kind = K::kRead, .lock = Lock::kRead, .in_transaction = true, .ddl = true}},
    CommandSpec{"archive", RunArchive, false, kFind | kInsert | kRemove | kCreateCollection},
    CommandSpec{"buildInfo", RunBuildInfo, false, kNoAuth},
    CommandSpec{"buildinfo", RunBuildInfo, false, kNoAuth},
    CommandSpec{"collMod", RunCollMod, false, kCollMod,
                {.lock = Lock::kOther}},
    CommandSpec{"collStats", RunCollStats, false, kCollStats,
                {.lock = Lock::kRead}},
    CommandSpec{"commitTransaction", RunCommitTransaction, true, kAuthenticated,
                {.in_transaction = true}},
    CommandSpec{"connectionStatus", RunConnectionStatus, false, kNoAuth},
    CommandSpec{"convertToCapped", RunConvertToCapped, false,
                kFind | kInsert | kCreateCollection | kDropCollection},
    CommandSpec{"count", RunCount, false, kFind,
                {.kind = K::kRead, .lock = Lock::kRead}},
    CommandSpec{"create", RunCreate, false, kCreateCollection,
                {.lock = Lock::kOther, .in_transaction = true}},
    CommandSpec{"createIndexes", RunCreateIndexes, false, kCreateIndex,
                {.lock = Lock::kOther, .in_transaction = true, .ddl = true}},
    CommandSpec{"createUser", RunCreateUser, false, kCreateUser,
                {.compress_reply = false, .secret = "pwd"}},
    CommandSpec{"currentOp", RunCurrentOp, true, kInprog},
    CommandSpec{"dbStats", RunDbStats, false, kDbStats},
    CommandSpec{"dbstats", RunDbStats, false, kDbStats},
    CommandSpec{"delete", RunDelete, false, kRemove,
                {.kind = K::kWrite, .op = Op::kRemove, .lock = Lock::kWrite, .retryable = true,
                 .in_transaction = true}},
    CommandSpec{"distinct", RunDistinct, false, kFind,
                {.kind = K::kRead, .lock = Lock::kRead, .in_transaction = true}},
    CommandSpec{"drop", RunDrop, false, kDropCollection,
                {.lock = Lock::kOther, .ddl = true}},
    CommandSpec{"dropAllUsersFromDatabase", RunDropAllUsersFromDatabase, false, kDropUser},
    CommandSpec{"dropDatabase", RunDropDatabase, false, kDropDatabase,
                {.ddl = true}},
    CommandSpec{"dropIndexes", RunDropIndexes, false, kDropIndex,
                {.lock = Lock::kOther, .ddl = true}},
    CommandSpec{"dropUser", RunDropUser, false, kDropUser},
    CommandSpec{"endSessions", RunEndSessions, false, kAuthenticated},
    CommandSpec{"explain", RunExplain, false, kFind},
    CommandSpec{"find", RunFind, false, kFind,
                {.kind = K::kRead, .op = Op::kQuery, .lock = Lock::kRead, .in_transaction = true}},
    CommandSpec{"findAndModify", RunFindAndModify, false, kFind | kUpdate | kRemove | kInsert,
                {.kind = K::kWrite, .lock = Lock::kWrite, .retryable = true,
                 .in_transaction = true}},
    CommandSpec{"findandmodify", RunFindAndModify, false, kFind | kUpdate | kRemove | kInsert,
                {.kind = K::kWrite, .lock = Lock::kWrite, .retryable = true,
                 .in_transaction = true}},
    CommandSpec{"getCmdLineOpts", RunGetCmdLineOpts, true, kGetCmdLineOpts},
    CommandSpec{"getLog", RunGetLog, true, kGetLog},
    CommandSpec{"getMore", RunGetMore, false, kAuthenticated,
                {.kind = K::kRead, .op = Op::kGetMore, .lock = Lock::kRead,
                 .in_transaction = true}},
    CommandSpec{"getParameter", RunGetParameter, true, kGetParameter},
    CommandSpec{"getnonce", RunGetNonce, false, kNoAuth,
                {.compress_reply = false}},
    CommandSpec{"grantRolesToUser", RunGrantRolesToUser, false, kGrantRole},
    CommandSpec{"hello", RunHello, false, kNoAuth,
                {.compress_reply = false, .secret = "speculativeAuthenticate"}},
    CommandSpec{"hostInfo", RunHostInfo, false, kHostInfo},
    CommandSpec{"insert", RunInsert, false, kInsert,
                {.kind = K::kWrite, .op = Op::kInsert, .lock = Lock::kWrite, .retryable = true,
                 .in_transaction = true}},
    CommandSpec{"isMaster", RunHello, false, kNoAuth,
                {.compress_reply = false, .secret = "speculativeAuthenticate"}},
    CommandSpec{"ismaster", RunHello, false, kNoAuth,
                {.compress_reply = false, .secret = "speculativeAuthenticate"}},
    // killAllSessions: MongoDB's killAnySession, a clusterAdmin action as killop is.
    CommandSpec{"killAllSessions", RunKillAllSessions, false, kKillop},
    CommandSpec{"killCursors", RunKillCursors, false, kAuthenticated,
                {.in_transaction = true}},
    CommandSpec{"killOp", RunKillOp, true, kKillop},
    CommandSpec{"killSessions", RunKillSessions, false, kAuthenticated},
    CommandSpec{"listCollections", RunListCollections, false, kListCollections},
    CommandSpec{"listDatabases", RunListDatabases, true, kAuthenticated},
    CommandSpec{"listIndexes", RunListIndexes, false, kListIndexes,
                {.lock = Lock::kRead}},
    CommandSpec{"logRotate", RunLogRotate, true, kUndeclared},
    CommandSpec{"logout", RunLogout, false, kNoAuth},
    CommandSpec{"ping", RunPing, false, kNoAuth},
    // profile: mongod's enableProfiler action (dbAdmin); tigerdoc has no such
    // action yet, so root only.
    CommandSpec{"profile", RunProfile, false, kUndeclared},
    CommandSpec{"refreshSessions", RunRefreshSessions, false, kAuthenticated},
    // replSetGetConfig/Status: cluster actions clusterMonitor holds, as serverStatus.
    CommandSpec{"renameCollection", RunRenameCollection, true, kUndeclared,
                {.ddl = true}},
    CommandSpec{"replSetGetConfig", RunReplSetGetConfig, true, kServerStatus},
    CommandSpec{"replSetGetStatus", RunReplSetGetStatus, true, kServerStatus},
    CommandSpec{"replSetInitiate", RunReplSetInitiate, true, kUndeclared},
    CommandSpec{"resyncSubset", RunPatternCommand, false, kFind | kUpdate},
    CommandSpec{"revokeRolesFromUser", RunRevokeRolesFromUser, false, kRevokeRole},
    CommandSpec{"saslContinue", RunSaslContinue, false, kNoAuth,
                {.compress_reply = false, .secret = "payload"}},
    CommandSpec{"saslStart", RunSaslStart, false, kNoAuth,
                {.compress_reply = false, .secret = "payload"}},
    CommandSpec{"serverStatus", RunServerStatus, false, kServerStatus},
    CommandSpec{"setParameter", RunSetParameter, true, kSetParameter},
    CommandSpec{"startSession", RunStartSession, false, kAuthenticated},
    // top: MongoDB's `top` cluster action, held by clusterMonitor as serverStatus is.
    CommandSpec{"top", RunTop, true, kServerStatus},
    CommandSpec{"update", RunUpdate, false, kUpdate | kInsert,
                {.kind = K::kWrite, .op = Op::kUpdate, .lock = Lock::kWrite, .retryable = true,
                 .in_transaction = true}},
    CommandSpec{"updateUser", RunUpdateUser, false, kUpdateUser,
                {.compress_reply = false, .secret = "pwd"}},
    CommandSpec{"usersInfo", RunUsersInfo, false, kAuthenticated},
    CommandSpec{"validate", RunValidate, false, kValidate,
                {.lock = Lock::kOther}},
    CommandSpec{"whatsmyuri", RunWhatsMyUri, false, kAuthenticated},
};

bool IsSorted() {
  return std::is_sorted(kCommands.begin(), kCommands.end(),
                        [](const CommandSpec& a, const CommandSpec& b) { return a.name < b.name; });
}

}  // namespace

namespace {

// The rows [first, second) of kCommands whose names start with each byte:
// sorted, they are one run each. FindCommand runs about twice per request;
// comparing the few names of one run costs a fifth of a binary search
// through all of them (string compares, about 330 instructions).
using Runs = std::array<std::pair<uint8_t, uint8_t>, 256>;
static_assert(kCommands.size() < 256);

Runs RunsByFirstByte() {
  INVARIANT(IsSorted());
  Runs runs{};
  for (size_t i = 0; i < kCommands.size(); ++i) {
    auto& run = runs[static_cast<uint8_t>(kCommands[i].name[0])];
    if (run.second == 0) run.first = static_cast<uint8_t>(i);
    run.second = static_cast<uint8_t>(i + 1);
  }
  return runs;
}

}  // namespace

const CommandSpec* FindCommand(std::string_view name) {
  static const Runs runs = RunsByFirstByte();
  if (name.empty()) return nullptr;
  const auto [first, end] = runs[static_cast<uint8_t>(name[0])];
  for (size_t i = first; i < end; ++i) {
    if (kCommands[i].name == name) return &kCommands[i];
  }
  return nullptr;
}

const char* LogicalOpName(LogicalOp op) {
  switch (op) {
    case LogicalOp::kQuery: return "query";
    case LogicalOp::kGetMore: return "getmore";
    case LogicalOp::kInsert: return "insert";
    case LogicalOp::kUpdate: return "update";
    case LogicalOp::kRemove: return "remove";
    case LogicalOp::kCommand: break;
  }
  return "command";
}

std::span<const CommandSpec> AllCommands() { return kCommands; }

auth::ActionSet DeclaredActions(std::string_view name) {
  const CommandSpec* spec = FindCommand(name);
  return spec == nullptr ? 0 : spec->actions;
}

}  // namespace tigerdoc::wire
