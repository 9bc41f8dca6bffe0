#include "wire/config/server_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace tigerdoc::wire::config {

const char* const kUsage = R"(tigerdoc: a MongoDB-compatible document database on WiredTiger

Usage: tigerdoc [options]
  --config FILE, -f FILE    mongod's YAML config file (README.md "Config file");
                            flags given here override it
  --port N                  TCP port to listen on (default 27017; 0 picks a free port)
  --bind_ip IP[,IP...]      addresses to listen on (default 127.0.0.1)
  --dbpath DIR              data directory, created if missing (default ./data)
  --shards N                shard tables per new collection (default 4)
  --cacheSizeMB N           WiredTiger cache size in MiB (default 1024)
  --wiredTigerEngineConfigString S
                            appended to WiredTiger's open configuration, as mongod's
                            (e.g. "eviction_dirty_target=30"); a bad one stops start-up
  --diskReserveMB N         free space kept on the dbpath's file system: writes
                            are refused (OutOfDiskSpace, 14031) and start-up fails
                            below it (default cacheSizeMB/4 + 32; 0 turns it off)
  --setParameter cursorTimeoutMillis=N
                            idle cursors are killed after N ms (default 600000)
  --setParameter ttlMonitorSleepSecs=N
                            the TTL monitor runs every N s (default 60)
  --setParameter transactionLifetimeLimitSeconds=N
                            with --replSet, transactions open longer are
                            aborted (default 60)
  --setParameter changeLogRetentionMB=N
                            change log kept for change streams: at most N MiB
                            (default 1024)
  --setParameter changeLogRetentionHours=H
                            ... and at most H hours (default 24; fractions allowed)
  --setParameter longWorkSlots=N
                            commands past 0.1 ms of work run N at a time, the
                            others wait (default: the cores; 0 turns it off)
  --maxConns N              connections beyond N open ones are closed at once
                            (default 1000000, as mongod)
  --maxConcurrentCommands N at most N document commands (find, aggregate, insert,
                            update, ...) run at once; the others wait, connections
                            that ran little lately first (default 0: no limit)
  --replSet NAME            run as the one member (and primary) of replica set
                            NAME: sessions, retryable writes and transactions
  --logpath FILE            write the log to FILE instead of stdout (JSON lines,
                            as mongod 4.4+; logRotate / SIGUSR1 rotate it)
  --logappend               keep FILE's lines instead of truncating it
  -v, -vv ... -vvvvv        debug lines D1..D5 (--verbose: -v)
  --quiet                   no connection accepted/ended lines
  --slowms N                log operations that take N ms or more (default 100)
  --profile N               profiling level of every database: 0 off, 1 slow operations, 2 all
  --slowOpSampleRate X      fraction of slow operations profiled (0 to 1, default 1)
  --auth                    require authentication (SCRAM-SHA-256/SCRAM-SHA-1 users
                            in admin.system.users) and check every command's privileges
  --networkMessageCompressors LIST
                            compressors offered to clients, in order of preference:
                            any of snappy,zstd,zlib, or "disabled" (default snappy,zstd,zlib)
  --tlsMode MODE            disabled (default), allowTLS, preferTLS or requireTLS
  --tlsCertificateKeyFile F PEM file with the server's certificate and private key
  --tlsCAFile F             PEM CA that signs client certificates; with it clients
                            must present one unless
  --tlsAllowConnectionsWithoutCertificates
  --help                    this text
  --version                 print the version
)";

const char* const kVersion = "tigerdoc 0.1.0 (MongoDB wire protocol, compatible with 7.0 clients)";

namespace {

Status Bad(const std::string& message) { return Status(ErrorCode::kBadValue, message); }

// `value` as a decimal integer in [min, max]; `name` is the flag or key.
StatusWith<int64_t> ParseNumber(const std::string& name, const std::string& value, int64_t min, int64_t max) {
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno == ERANGE || n < min || n > max) {
    return Bad("invalid value for " + name + ": '" + value + "' (expected " + std::to_string(min) + ".." +
               std::to_string(max) + ")");
  }
  return static_cast<int64_t>(n);
}

// --setParameter NAME=VALUE and the config file's setParameter.NAME: the
// server parameters that can be set at start-up.
Status SetParameter(const std::string& name, const std::string& value, Flags* flags) {
  if (name == "cursorTimeoutMillis") {
    ASSIGN_OR_RETURN(flags->cursor_timeout_ms, ParseNumber(name, value, 1, INT64_MAX / 2));
  } else if (name == "ttlMonitorSleepSecs") {
    ASSIGN_OR_RETURN(flags->ttl_monitor_sleep_secs, ParseNumber(name, value, 1, INT32_MAX));
  } else if (name == "transactionLifetimeLimitSeconds") {
    ASSIGN_OR_RETURN(flags->transaction_lifetime_limit_secs, ParseNumber(name, value, 1, INT32_MAX));
  } else if (name == "changeLogRetentionMB") {
    ASSIGN_OR_RETURN(flags->change_log_retention_mb, ParseNumber(name, value, 1, 1000000000));
  } else if (name == "longWorkSlots") {
    ASSIGN_OR_RETURN(flags->long_work_slots, ParseNumber(name, value, 0, 1024));
  } else if (name == "changeLogRetentionHours") {
    char* end = nullptr;
    const double hours = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(hours > 0) || hours > 1e6) {
      return Bad("invalid value for " + name + ": '" + value + "' (expected a number above 0)");
    }
    flags->change_log_retention_hours = hours;
  } else {
    return Bad("unknown parameter: " + name);
  }
  return Status::OK();
}

// "snappy,zstd,zlib" (any subset, any order) or "disabled".
StatusWith<std::vector<std::string>> ParseCompressors(const std::string& name, const std::string& list) {
  std::vector<std::string> out;
  if (list == "disabled") return out;
  size_t start = 0;
  while (true) {
    const size_t comma = list.find(',', start);
    std::string one = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (one != "snappy" && one != "zstd" && one != "zlib") {
      return Bad("invalid value for " + name + ": '" + one + "' (expected snappy, zstd, zlib or disabled)");
    }
    out.push_back(one);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Status CheckTlsMode(const std::string& name, const std::string& mode) {
  if (mode == "disabled" || mode == "allowTLS" || mode == "preferTLS" || mode == "requireTLS") {
    return Status::OK();
  }
  return Bad("invalid value for " + name + ": '" + mode +
             "' (expected disabled, allowTLS, preferTLS or requireTLS)");
}

// ---- The config file --------------------------------------------------------

// A scalar's text, or an error naming the key when the node is a map/list.
StatusWith<std::string> ScalarText(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) return Bad(path + " must be a single value");
  return node.Scalar();
}

StatusWith<int64_t> IntegerAt(const YAML::Node& node, const std::string& path, int64_t min, int64_t max) {
  ASSIGN_OR_RETURN(std::string text, ScalarText(node, path));
  return ParseNumber(path, text, min, max);
}

// operationProfiling.slowOpSampleRate, --slowOpSampleRate: 0 to 1.
StatusWith<double> ParseSampleRate(const std::string& name, const std::string& value) {
  char* end = nullptr;
  const double rate = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !(rate >= 0.0 && rate <= 1.0)) {
    return Bad("invalid value for " + name + ": '" + value + "' (expected a number from 0 to 1)");
  }
  return rate;
}

StatusWith<bool> BoolAt(const YAML::Node& node, const std::string& path) {
  bool value = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
    return Bad(path + " must be true or false");
  }
  return value;
}

using Setter = std::function<Status(const YAML::Node&, const std::string& path, Flags*)>;

// THE table of the config file's keys, by dotted path.
const std::map<std::string, Setter>& Keys() {
  static const auto* keys = new std::map<std::string, Setter>{
      {"net.port", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(int64_t port, IntegerAt(n, p, 0, 65535));
         f->port = static_cast<int>(port);
         return Status::OK();
       }},
      {"net.bindIp", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->bind_ip, ScalarText(n, p));
         return Status::OK();
       }},
      {"net.bindIpAll", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(bool all, BoolAt(n, p));
         if (all) f->bind_ip = "0.0.0.0";
         return Status::OK();
       }},
      {"net.maxIncomingConnections", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->max_conns, IntegerAt(n, p, 1, 1000000000));
         return Status::OK();
       }},
      {"storage.dbPath", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->dbpath, ScalarText(n, p));
         return Status::OK();
       }},
      {"storage.journal.enabled", [](const YAML::Node& n, const std::string& p, Flags*) -> Status {
         ASSIGN_OR_RETURN(bool enabled, BoolAt(n, p));
         if (!enabled) return Bad(p + ": false is not supported: tigerdoc always journals");
         return Status::OK();
       }},
      {"storage.wiredTiger.engineConfig.cacheSizeGB",
       [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(std::string text, ScalarText(n, p));
         char* end = nullptr;
         double gb = std::strtod(text.c_str(), &end);
         // mongod's range: 0.25 GB .. 10 TB.
         if (text.empty() || *end != '\0' || !(gb >= 0.25 && gb <= 10000)) {
           return Bad("invalid value for " + p + ": '" + text + "' (expected 0.25..10000)");
         }
         f->cache_size_mb = static_cast<int64_t>(std::llround(gb * 1024));
         return Status::OK();
       }},
      {"storage.wiredTiger.engineConfig.configString",
       [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->wiredtiger_config, ScalarText(n, p));
         return Status::OK();
       }},
      {"processManagement.fork", [](const YAML::Node& n, const std::string& p, Flags*) -> Status {
         ASSIGN_OR_RETURN(bool fork, BoolAt(n, p));
         if (fork) {
           return Bad(p + ": true is not supported: tigerdoc stays in the foreground; run it under "
                          "systemd, in a container or with nohup");
         }
         return Status::OK();
       }},
      {"replication.replSetName", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->repl_set_name, ScalarText(n, p));
         if (f->repl_set_name.empty()) return Bad(p + " must name the replica set");
         return Status::OK();
       }},
      {"setParameter", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         if (!n.IsMap()) return Bad(p + " must be a map of parameter names to values");
         for (const auto& entry : n) {
           const std::string name = entry.first.Scalar();
           ASSIGN_OR_RETURN(std::string value, ScalarText(entry.second, p + "." + name));
           Status st = SetParameter(name, value, f);
           if (!st.ok()) return Bad(p + "." + name + ": " + st.reason());
         }
         return Status::OK();
       }},
      {"systemLog.destination", [](const YAML::Node& n, const std::string& p, Flags*) -> Status {
         ASSIGN_OR_RETURN(std::string where, ScalarText(n, p));
         if (where == "file" || where == "stdout") return Status::OK();  // file: systemLog.path
         if (where == "syslog") return Bad(p + ": syslog is not supported: use file or stdout");
         return Bad(p + " must be file or stdout, got '" + where + "'");
       }},
      {"systemLog.path", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->log_path, ScalarText(n, p));
         return Status::OK();
       }},
      {"systemLog.logAppend", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->log_append, BoolAt(n, p));
         return Status::OK();
       }},
      {"systemLog.verbosity", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(int64_t v, IntegerAt(n, p, 0, 5));
         f->verbosity = static_cast<int>(v);
         return Status::OK();
       }},
      {"systemLog.quiet", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->quiet, BoolAt(n, p));
         return Status::OK();
       }},
      {"operationProfiling.slowOpThresholdMs", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->slow_ms, IntegerAt(n, p, -1, INT32_MAX));
         return Status::OK();
       }},
      {"operationProfiling.mode", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(std::string mode, ScalarText(n, p));
         if (mode == "off") f->profile_level = 0;
         else if (mode == "slowOp") f->profile_level = 1;
         else if (mode == "all") f->profile_level = 2;
         else return Bad(p + " must be off, slowOp or all, got '" + mode + "'");
         return Status::OK();
       }},
      {"operationProfiling.slowOpSampleRate", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(std::string text, ScalarText(n, p));
         ASSIGN_OR_RETURN(f->slow_op_sample_rate, ParseSampleRate(p, text));
         return Status::OK();
       }},
      {"security.authorization", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(std::string value, ScalarText(n, p));
         if (value != "enabled" && value != "disabled") {
           return Bad(p + " must be enabled or disabled, got '" + value + "'");
         }
         f->auth = value == "enabled";
         return Status::OK();
       }},
      {"net.compression.compressors", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(std::string value, ScalarText(n, p));
         ASSIGN_OR_RETURN(f->compressors, ParseCompressors(p, value));
         return Status::OK();
       }},
      {"net.tls.mode", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->tls_mode, ScalarText(n, p));
         return CheckTlsMode(p, f->tls_mode);
       }},
      {"net.tls.certificateKeyFile", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->tls_certificate_key_file, ScalarText(n, p));
         return Status::OK();
       }},
      {"net.tls.CAFile", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->tls_ca_file, ScalarText(n, p));
         return Status::OK();
       }},
      {"net.tls.allowConnectionsWithoutCertificates",
       [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->tls_allow_connections_without_certificates, BoolAt(n, p));
         return Status::OK();
       }},
      {"tigerdoc.shards", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(int64_t shards, IntegerAt(n, p, 1, 1024));
         f->shards = static_cast<int>(shards);
         return Status::OK();
       }},
      {"tigerdoc.cacheSizeMB", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->cache_size_mb, IntegerAt(n, p, 16, 1 << 20));
         return Status::OK();
       }},
      {"tigerdoc.diskReserveMB", [](const YAML::Node& n, const std::string& p, Flags* f) -> Status {
         ASSIGN_OR_RETURN(f->disk_reserve_mb, IntegerAt(n, p, 0, 1 << 30));
         return Status::OK();
       }},
  };
  return *keys;
}

// The dotted path of the first key at or under `node` (at `path`): an
// unknown section is named by the key that would have set something.
std::string FirstKeyPath(const YAML::Node& node, const std::string& path) {
  if (!node.IsMap() || node.size() == 0) return path;
  auto first = node.begin();
  if (!first->first.IsScalar()) return path;
  return FirstKeyPath(first->second, path + "." + first->first.Scalar());
}

bool IsSection(const std::string& path) {
  const std::string prefix = path + ".";
  auto it = Keys().lower_bound(prefix);
  return it != Keys().end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

// Applies every key of the map `node` (at `prefix`, "" for the top).
Status ApplyMap(const YAML::Node& node, const std::string& prefix, Flags* flags) {
  for (const auto& entry : node) {
    if (!entry.first.IsScalar()) return Bad("keys must be names" + (prefix.empty() ? "" : " in " + prefix));
    const std::string path = prefix.empty() ? entry.first.Scalar() : prefix + "." + entry.first.Scalar();
    auto key = Keys().find(path);
    if (key != Keys().end()) {
      RETURN_IF_ERROR(key->second(entry.second, path, flags));
    } else if (IsSection(path)) {
      if (entry.second.IsNull()) continue;  // an empty section
      if (!entry.second.IsMap()) return Bad(path + " must be a map");
      RETURN_IF_ERROR(ApplyMap(entry.second, path, flags));
    } else {
      return Bad("unknown option " + FirstKeyPath(entry.second, path) +
                 " (tigerdoc supports: see README.md \"Config file\")");
    }
  }
  return Status::OK();
}

}  // namespace

Status ApplyConfigYaml(std::string_view yaml, const std::string& source, Flags* flags) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    return Bad("config file " + source + ": " + e.what());
  }
  if (root.IsNull()) return Status::OK();  // empty file
  if (!root.IsMap()) return Bad("config file " + source + ": the top level must be a map of sections");
  Status st = ApplyMap(root, "", flags);
  if (!st.ok()) return Bad("config file " + source + ": " + st.reason());
  return Status::OK();
}

StatusWith<CommandLine> ParseCommandLine(int argc, const char* const* argv) {
  CommandLine out;
  Flags& flags = out.flags;
  // The file first, wherever --config stands, so that every flag overrides it.
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string file;
    if (arg == "--config" || arg == "-f") {
      if (i + 1 >= argc) return Bad("missing value for " + arg);
      file = argv[i + 1];
    } else if (arg.rfind("--config=", 0) == 0) {
      file = arg.substr(9);
    } else {
      continue;
    }
    if (!flags.config_file.empty()) return Bad("--config given twice");
    std::ifstream in(file);
    if (!in) return Bad("cannot read config file " + file + ": " + std::strerror(errno));
    std::stringstream text;
    text << in.rdbuf();
    flags.config_file = file;
    RETURN_IF_ERROR(ApplyConfigYaml(text.str(), file, &flags));
  }
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    // Accept both "--flag value" and "--flag=value".
    size_t eq = arg.find('=');
    bool has_inline = arg.rfind("--", 0) == 0 && eq != std::string::npos;
    if (has_inline) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
    }
    std::string missing;
    auto next = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) {
        missing = arg;
        return "";
      }
      return argv[++i];
    };
    Status st = Status::OK();
    if (arg == "--help" || arg == "-h") {
      out.action = Action::kHelp;
      return out;
    } else if (arg == "--version") {
      out.action = Action::kVersion;
      return out;
    } else if (arg == "--config" || arg == "-f") {
      next();  // read above
    } else if (arg == "--port") {
      auto n = ParseNumber(arg, next(), 0, 65535);
      if (n.ok()) flags.port = static_cast<int>(n.value());
      st = n.status();
    } else if (arg == "--bind_ip") {
      flags.bind_ip = next();
    } else if (arg == "--dbpath") {
      flags.dbpath = next();
    } else if (arg == "--shards") {
      auto n = ParseNumber(arg, next(), 1, 1024);
      if (n.ok()) flags.shards = static_cast<int>(n.value());
      st = n.status();
    } else if (arg == "--cacheSizeMB") {
      auto n = ParseNumber(arg, next(), 16, 1 << 20);
      if (n.ok()) flags.cache_size_mb = n.value();
      st = n.status();
    } else if (arg == "--wiredTigerEngineConfigString") {
      flags.wiredtiger_config = next();
    } else if (arg == "--diskReserveMB") {
      auto n = ParseNumber(arg, next(), 0, 1 << 30);
      if (n.ok()) flags.disk_reserve_mb = n.value();
      st = n.status();
    } else if (arg == "--maxConns") {
      auto n = ParseNumber(arg, next(), 1, 1000000000);
      if (n.ok()) flags.max_conns = n.value();
      st = n.status();
    } else if (arg == "--maxConcurrentCommands") {
      auto n = ParseNumber(arg, next(), 0, 1000000);
      if (n.ok()) flags.max_concurrent_commands = n.value();
      st = n.status();
    } else if (arg == "--replSet") {
      flags.repl_set_name = next();
      if (flags.repl_set_name.empty()) st = Bad("--replSet needs a replica set name");
    } else if (arg == "--logpath") {
      flags.log_path = next();
    } else if (arg == "--logappend") {
      flags.log_append = true;
    } else if (arg == "--quiet") {
      flags.quiet = true;
    } else if (arg == "--verbose") {
      flags.verbosity = std::max(flags.verbosity, 1);
    } else if (arg.size() >= 2 && arg.size() <= 6 && arg[0] == '-' && arg.find_first_not_of('v', 1) == std::string::npos) {
      flags.verbosity = static_cast<int>(arg.size()) - 1;  // -v .. -vvvvv
    } else if (arg == "--profile") {
      auto n = ParseNumber(arg, next(), 0, 2);
      if (n.ok()) flags.profile_level = static_cast<int>(n.value());
      st = n.status();
    } else if (arg == "--slowOpSampleRate") {
      auto rate = ParseSampleRate(arg, next());
      if (rate.ok()) flags.slow_op_sample_rate = rate.value();
      st = rate.status();
    } else if (arg == "--slowms") {
      auto n = ParseNumber(arg, next(), -1, INT32_MAX);
      if (n.ok()) flags.slow_ms = n.value();
      st = n.status();
    } else if (arg == "--auth") {
      flags.auth = true;
    } else if (arg == "--networkMessageCompressors") {
      auto list = ParseCompressors(arg, next());
      if (list.ok()) flags.compressors = list.value();
      st = list.status();
    } else if (arg == "--tlsMode") {
      flags.tls_mode = next();
      if (missing.empty()) st = CheckTlsMode(arg, flags.tls_mode);
    } else if (arg == "--tlsCertificateKeyFile") {
      flags.tls_certificate_key_file = next();
    } else if (arg == "--tlsCAFile") {
      flags.tls_ca_file = next();
    } else if (arg == "--tlsAllowConnectionsWithoutCertificates") {
      flags.tls_allow_connections_without_certificates = true;
    } else if (arg == "--setParameter") {
      std::string setting = next();
      size_t sep = setting.find('=');
      if (missing.empty()) {
        st = sep == std::string::npos ? Bad("--setParameter takes NAME=VALUE, got '" + setting + "'")
                                      : SetParameter(setting.substr(0, sep), setting.substr(sep + 1), &flags);
      }
    } else {
      return Bad("unknown option: " + arg);
    }
    if (!missing.empty()) return Bad("missing value for " + missing);
    RETURN_IF_ERROR(st);
  }
  return out;
}

}  // namespace tigerdoc::wire::config
