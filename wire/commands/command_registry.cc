#include "wire/commands/command_registry.h"

#include <algorithm>
#include <array>

namespace tigerdoc::wire {
namespace {

// Sorted by name (std::string_view order), checked at first use.
constexpr std::array kCommands = {
    CommandSpec{"abortTransaction", RunAbortTransaction, true},
    CommandSpec{"aggregate", RunAggregate},
    CommandSpec{"archive", RunArchive},
    CommandSpec{"buildInfo", RunBuildInfo},
    CommandSpec{"buildinfo", RunBuildInfo},
    CommandSpec{"collMod", RunCollMod},
    CommandSpec{"collStats", RunCollStats},
    CommandSpec{"commitTransaction", RunCommitTransaction, true},
    CommandSpec{"connectionStatus", RunConnectionStatus},
    CommandSpec{"count", RunCount},
    CommandSpec{"create", RunCreate},
    CommandSpec{"createIndexes", RunCreateIndexes},
    CommandSpec{"currentOp", RunCurrentOp, true},
    CommandSpec{"dbStats", RunDbStats},
    CommandSpec{"dbstats", RunDbStats},
    CommandSpec{"delete", RunDelete},
    CommandSpec{"distinct", RunDistinct},
    CommandSpec{"drop", RunDrop},
    CommandSpec{"dropDatabase", RunDropDatabase},
    CommandSpec{"dropIndexes", RunDropIndexes},
    CommandSpec{"endSessions", RunEndSessions},
    CommandSpec{"explain", RunExplain},
    CommandSpec{"find", RunFind},
    CommandSpec{"findAndModify", RunFindAndModify},
    CommandSpec{"findandmodify", RunFindAndModify},
    CommandSpec{"getCmdLineOpts", RunGetCmdLineOpts, true},
    CommandSpec{"getLog", RunGetLog, true},
    CommandSpec{"getMore", RunGetMore},
    CommandSpec{"getParameter", RunGetParameter, true},
    CommandSpec{"getnonce", RunGetNonce},
    CommandSpec{"hello", RunHello},
    CommandSpec{"hostInfo", RunHostInfo},
    CommandSpec{"insert", RunInsert},
    CommandSpec{"isMaster", RunHello},
    CommandSpec{"ismaster", RunHello},
    CommandSpec{"killCursors", RunKillCursors},
    CommandSpec{"killOp", RunKillOp, true},
    CommandSpec{"killSessions", RunEndSessions},
    CommandSpec{"listCollections", RunListCollections},
    CommandSpec{"listDatabases", RunListDatabases, true},
    CommandSpec{"listIndexes", RunListIndexes},
    CommandSpec{"logRotate", RunLogRotate, true},
    CommandSpec{"ping", RunPing},
    CommandSpec{"refreshSessions", RunEndSessions},
    CommandSpec{"resyncSubset", RunPatternCommand},
    CommandSpec{"serverStatus", RunServerStatus},
    CommandSpec{"setParameter", RunSetParameter, true},
    CommandSpec{"top", RunTop, true},
    CommandSpec{"update", RunUpdate},
    CommandSpec{"validate", RunValidate},
    CommandSpec{"whatsmyuri", RunWhatsMyUri},
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

}  // namespace tigerdoc::wire
