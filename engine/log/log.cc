#include "engine/log/log.h"

#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>

namespace tigerdoc::log {
namespace {

struct State {
  std::mutex mu;
  Options options;
  FILE* file = nullptr;  // null: stdout
  std::deque<std::string> global;
  std::deque<std::string> startup_warnings;
  int64_t total = 0;
  bool startup_complete = false;
};

State& S() {
  static State* state = new State();  // never destroyed: threads may log at exit
  return *state;
}

std::atomic<int64_t> g_slow_ms{100};
std::atomic<int> g_verbosity{0};
std::atomic<bool> g_quiet{false};
thread_local std::string t_context = "main";

const char* SeverityName(Severity s) {
  static const char* const kNames[] = {"F", "E", "W", "I", "D1", "D2", "D3", "D4", "D5"};
  return kNames[static_cast<int>(s)];
}

// "2026-11-26T10:49:00.123+00:00" (UTC, milliseconds), mongod's iso8601.
std::string Timestamp() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  struct tm tm;
  gmtime_r(&tv.tv_sec, &tm);
  char buf[64];
  size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03d+00:00", static_cast<int>(tv.tv_usec / 1000));
  return buf;
}

Status OpenLocked(State& s, bool append) {
  if (s.options.path.empty()) return Status::OK();
  FILE* f = std::fopen(s.options.path.c_str(), append ? "a" : "w");
  if (f == nullptr) {
    return Status(ErrorCode::kOperationFailed,
                  "cannot open log file " + s.options.path + ": " + std::strerror(errno));
  }
  std::setvbuf(f, nullptr, _IOLBF, 0);
  s.file = f;
  return Status::OK();
}

void Keep(std::deque<std::string>& ring, const std::string& line) {
  ring.push_back(line);
  if (ring.size() > kLineCapacity) ring.pop_front();
}

}  // namespace

Status Configure(const Options& options) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.file != nullptr) std::fclose(s.file);
  s.file = nullptr;
  s.options = options;
  g_slow_ms.store(options.slow_ms);
  g_verbosity.store(options.verbosity);
  g_quiet.store(options.quiet);
  return OpenLocked(s, options.append);
}

const Options& Current() { return S().options; }

int64_t SlowMs() { return g_slow_ms.load(std::memory_order_relaxed); }
void SetSlowMs(int64_t ms) { g_slow_ms.store(ms); }
bool Quiet() { return g_quiet.load(std::memory_order_relaxed); }

bool Enabled(Severity severity) {
  int level = static_cast<int>(severity) - static_cast<int>(Severity::kInfo);
  return level <= g_verbosity.load(std::memory_order_relaxed);
}

void SetThreadContext(std::string_view ctx) {
  if (t_context != ctx) t_context.assign(ctx);
}

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

void Write(Severity severity, std::string_view component, int id, std::string_view msg, const bson_t* attr) {
  if (!Enabled(severity)) return;
  std::string line = "{\"t\":{\"$date\":\"" + Timestamp() + "\"},\"s\":\"" + SeverityName(severity) +
                     "\",\"c\":" + JsonString(component) + ",\"id\":" + std::to_string(id) +
                     ",\"ctx\":" + JsonString(t_context) + ",\"msg\":" + JsonString(msg);
  if (attr != nullptr && !bson_empty(attr)) {
    size_t len = 0;
    char* json = bson_as_relaxed_extended_json(attr, &len);
    if (json != nullptr) {
      line += ",\"attr\":";
      line.append(json, len);
      bson_free(json);
    }
  }
  line += "}";
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  FILE* out = s.file != nullptr ? s.file : stdout;
  std::fwrite(line.data(), 1, line.size(), out);
  std::fputc('\n', out);
  std::fflush(out);
  ++s.total;
  Keep(s.global, line);
  if (!s.startup_complete && severity <= Severity::kWarning) Keep(s.startup_warnings, line);
}

Status Rotate() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.options.path.empty()) return Status::OK();
  time_t now = time(nullptr);
  struct tm tm;
  gmtime_r(&now, &tm);
  char suffix[32];
  std::strftime(suffix, sizeof suffix, ".%Y-%m-%dT%H-%M-%S", &tm);
  std::string rotated = s.options.path + suffix;
  // Two rotations within one second: keep both.
  for (int i = 1; access(rotated.c_str(), F_OK) == 0; ++i) {
    rotated = s.options.path + suffix + "." + std::to_string(i);
  }
  if (std::rename(s.options.path.c_str(), rotated.c_str()) != 0) {
    return Status(ErrorCode::kOperationFailed, "logRotate: cannot rename " + s.options.path + " to " +
                                                    rotated + ": " + std::strerror(errno));
  }
  if (s.file != nullptr) std::fclose(s.file);
  s.file = nullptr;
  Status opened = OpenLocked(s, /*append=*/false);
  if (!opened.ok()) return opened;
  return Status::OK();
}

void MarkStartupComplete() {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  s.startup_complete = true;
}

Recent RecentLines(std::string_view which) {
  State& s = S();
  std::lock_guard<std::mutex> lock(s.mu);
  Recent out;
  const auto& ring = which == "startupWarnings" ? s.startup_warnings : s.global;
  out.total_lines_written = which == "startupWarnings" ? static_cast<int64_t>(ring.size()) : s.total;
  out.lines.assign(ring.begin(), ring.end());
  return out;
}

}  // namespace tigerdoc::log
