#pragma once
// The server log, in mongod 4.4+'s structured format: one JSON object per
// line,
//   {"t":{"$date":"2026-11-26T10:49:00.123+00:00"},"s":"I","c":"NETWORK","id":23016,
//    "ctx":"listener","msg":"Waiting for connections","attr":{"port":27017}}
// written to stdout or to a file (--logpath / systemLog.path), reopened by
// Rotate() (the logRotate command and SIGUSR1: the old file is renamed to
// "<path>.<UTC time>", as mongod's default logRotate: rename). Debug lines
// ("D1".."D5") need that verbosity; --quiet drops connection lines. The last
// kLineCapacity lines are kept for getLog "global", warnings before
// MarkStartupComplete() also for "startupWarnings".
// Thread-safe: every line is formatted outside and written whole under one
// mutex, so lines from many threads never interleave.

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"

namespace tigerdoc::log {

enum class Severity { kFatal, kError, kWarning, kInfo, kDebug1, kDebug2, kDebug3, kDebug4, kDebug5 };

struct Options {
  std::string path;     // empty: stdout
  bool append = false;  // --logappend: keep an existing file's lines
  int verbosity = 0;    // 0..5: Debug<N> lines are written when N <= verbosity
  bool quiet = false;   // --quiet: no connection accepted/ended lines
  int64_t slow_ms = 100;  // --slowms: operations at least this long are logged
};

inline constexpr size_t kLineCapacity = 1024;

// Applies `options`; opens (creates, truncates unless append) the file.
Status Configure(const Options& options);
const Options& Current();

// The slow-operation threshold (--slowms, the profile command's slowms).
int64_t SlowMs();
void SetSlowMs(int64_t ms);

// Whether a line of `severity` would be written.
bool Enabled(Severity severity);
// Writes one line; `attr` (may be null) becomes the "attr" object.
// `component` is mongod's: "CONTROL", "NETWORK", "COMMAND", "STORAGE",
// "INDEX", "QUERY", "WRITE", "-".
void Write(Severity severity, std::string_view component, int id, std::string_view msg,
           const bson_t* attr = nullptr);
// --quiet: connection lines go nowhere (not even the ring).
bool Quiet();

// The "ctx" of lines this thread writes ("conn12"; default "main").
void SetThreadContext(std::string_view ctx);

// Renames the log file to "<path>.<YYYY-MM-DDTHH-MM-SS>" and opens a new one.
// Logging to stdout there is nothing to rotate: OK, as mongod.
Status Rotate();

// Later warnings are no longer startup warnings.
void MarkStartupComplete();

struct Recent {
  int64_t total_lines_written = 0;
  std::vector<std::string> lines;  // oldest first
};
// "global" or "startupWarnings".
Recent RecentLines(std::string_view which);

// The JSON string literal of `text` (quotes included), as the lines use.
std::string JsonString(std::string_view text);

}  // namespace tigerdoc::log
