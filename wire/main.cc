// tigerdoc: flags -> patterns -> Engine::Open -> Server::Run.

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/write/pattern_registry.h"
#include "patterns/archive/archive_pattern.h"
#include "patterns/archive/archive_scheduler.h"
#include "patterns/bucket/bucket_pattern.h"
#include "patterns/discriminator/discriminator_pattern.h"
#include "patterns/outlier/outlier_pattern.h"
#include "patterns/size_limits/size_limits_pattern.h"
#include "patterns/subset/subset_pattern.h"
#include "wire/commands/dispatcher.h"
#include "wire/server/server.h"
#include "wire/server/tls.h"

namespace {

constexpr const char* kUsage = R"(tigerdoc: a MongoDB-compatible document database on WiredTiger

Usage: tigerdoc [options]
  --port N                  TCP port to listen on (default 27017; 0 picks a free port)
  --bind_ip IP[,IP...]      addresses to listen on (default 127.0.0.1)
  --dbpath DIR              data directory, created if missing (default ./data)
  --shards N                shard tables per new collection (default 4)
  --cacheSizeMB N           WiredTiger cache size in MiB (default 1024)
  --diskReserveMB N         free space kept on the dbpath's file system: writes
                            are refused (OutOfDiskSpace, 14031) and start-up fails
                            below it (default cacheSizeMB/4 + 32; 0 turns it off)
  --setParameter cursorTimeoutMillis=N
                            idle cursors are killed after N ms (default 600000)
  --setParameter ttlMonitorSleepSecs=N
                            the TTL monitor runs every N s (default 60)
  --maxConns N              connections beyond N open ones are closed at once
                            (default 1000000, as mongod)
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

struct Flags {
  int port = 27017;
  std::string bind_ip = "127.0.0.1";
  std::string dbpath = "./data";
  int shards = 4;
  int64_t cache_size_mb = 1024;
  int64_t cursor_timeout_ms = 600000;
  int64_t ttl_monitor_sleep_secs = 60;
  int64_t max_conns = 1000000;  // mongod's default
  int64_t disk_reserve_mb = tigerdoc::storage::StorageOptions::kAutoDiskReserve;
  bool auth = false;  // --auth (security.authorization: enabled)
  std::vector<std::string> compressors = {"snappy", "zstd", "zlib"};
  tigerdoc::wire::TlsOptions tls;  // --tlsMode, --tlsCertificateKeyFile, ... (net.tls)
};

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "tigerdoc: " << message << "\n" << "Try 'tigerdoc --help'.\n";
  std::exit(2);
}

int64_t ParseNumber(const std::string& flag, const std::string& value, int64_t min, int64_t max) {
  char* end = nullptr;
  long long n = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || n < min || n > max) {
    Die("invalid value for " + flag + ": '" + value + "' (expected " + std::to_string(min) + ".." +
        std::to_string(max) + ")");
  }
  return n;
}

// "snappy,zstd,zlib" (any subset, any order) or "disabled".
std::vector<std::string> ParseCompressors(const std::string& list) {
  std::vector<std::string> out;
  if (list == "disabled") return out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name != "snappy" && name != "zstd" && name != "zlib") {
      Die("invalid value for --networkMessageCompressors: '" + name +
          "' (expected snappy, zstd, zlib or disabled)");
    }
    out.push_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
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
    auto next = [&]() -> std::string {
      if (has_inline) return value;
      if (i + 1 >= argc) Die("missing value for " + arg);
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (arg == "--version") {
      std::cout << "tigerdoc 0.1.0 (MongoDB wire protocol, compatible with 7.0 clients)\n";
      std::exit(0);
    } else if (arg == "--port") {
      flags.port = static_cast<int>(ParseNumber(arg, next(), 0, 65535));
    } else if (arg == "--bind_ip") {
      flags.bind_ip = next();
    } else if (arg == "--dbpath") {
      flags.dbpath = next();
    } else if (arg == "--shards") {
      flags.shards = static_cast<int>(ParseNumber(arg, next(), 1, 1024));
    } else if (arg == "--cacheSizeMB") {
      flags.cache_size_mb = ParseNumber(arg, next(), 16, 1 << 20);
    } else if (arg == "--diskReserveMB") {
      flags.disk_reserve_mb = ParseNumber(arg, next(), 0, 1 << 30);
    } else if (arg == "--maxConns") {
      flags.max_conns = ParseNumber(arg, next(), 1, 1000000000);
    } else if (arg == "--auth") {
      flags.auth = true;
    } else if (arg == "--tlsMode") {
      auto mode = tigerdoc::wire::ParseTlsMode(next());
      if (!mode.ok()) Die(mode.status().reason());
      flags.tls.mode = mode.value();
    } else if (arg == "--tlsCertificateKeyFile") {
      flags.tls.certificate_key_file = next();
    } else if (arg == "--tlsCAFile") {
      flags.tls.ca_file = next();
    } else if (arg == "--tlsAllowConnectionsWithoutCertificates") {
      flags.tls.allow_connections_without_certificates = true;
    } else if (arg == "--networkMessageCompressors") {
      flags.compressors = ParseCompressors(next());
    } else if (arg == "--setParameter") {
      std::string setting = next();
      const std::string kCursorTimeout = "cursorTimeoutMillis=";
      const std::string kTtlSleep = "ttlMonitorSleepSecs=";
      if (setting.rfind(kCursorTimeout, 0) == 0) {
        flags.cursor_timeout_ms =
            ParseNumber("cursorTimeoutMillis", setting.substr(kCursorTimeout.size()), 1, INT64_MAX / 2);
      } else if (setting.rfind(kTtlSleep, 0) == 0) {
        flags.ttl_monitor_sleep_secs =
            ParseNumber("ttlMonitorSleepSecs", setting.substr(kTtlSleep.size()), 1, INT32_MAX);
      } else {
        Die("unknown parameter: " + setting);
      }
    } else {
      Die("unknown option: " + arg);
    }
  }
  return flags;
}

// THE table of patterns this server has, alphabetical by folder. Each owns
// collection options (patterns/README.md). Filled before the engine opens,
// so that configured collections have their hooks before any write.
std::shared_ptr<tigerdoc::engine::PatternRegistry> MakePatternRegistry() {
  using namespace tigerdoc;
  auto registry = std::make_shared<engine::PatternRegistry>();
  registry->Add(patterns::archive::MakeArchivePattern());
  registry->Add(patterns::bucket::MakeBucketPattern());
  registry->Add(patterns::discriminator::MakeDiscriminatorPattern());
  registry->Add(patterns::outlier::MakeOutlierPattern());
  registry->Add(patterns::size_limits::MakeSizeLimitsPattern());
  registry->Add(patterns::subset::MakeSubsetPattern());
  return registry;
}

// Each connection is a file descriptor: raise the soft limit toward the
// hard one (as a service manager would for mongod) and warn when even that
// cannot hold --maxConns connections plus WiredTiger's files.
void RaiseFileLimit(int64_t max_conns) {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  if (limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);
    getrlimit(RLIMIT_NOFILE, &limit);
  }
  constexpr int64_t kReservedFiles = 1000;  // tables, journal, spill files
  if (limit.rlim_cur != RLIM_INFINITY &&
      static_cast<int64_t>(limit.rlim_cur) < max_conns + kReservedFiles && max_conns < 1000000) {
    std::cerr << "tigerdoc: warning: open file limit " << limit.rlim_cur << " is below --maxConns "
              << max_conns << " plus " << kReservedFiles << " files for the data" << std::endl;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tigerdoc;
  Flags flags = ParseFlags(argc, argv);

  auto tls = wire::TlsContext::Create(flags.tls);
  if (!tls.ok()) {
    std::cerr << "tigerdoc: " << tls.status().reason() << "\n";
    return 1;
  }

  engine::EngineOptions options;
  options.storage.dbpath = flags.dbpath;
  options.storage.cache_size_mb = flags.cache_size_mb;
  options.storage.disk_reserve_mb = flags.disk_reserve_mb;
  options.default_shards = flags.shards;
  options.patterns = MakePatternRegistry();
  options.ttl_monitor_sleep = std::chrono::seconds(flags.ttl_monitor_sleep_secs);
  options.cursor_timeout = std::chrono::milliseconds(flags.cursor_timeout_ms);
  if (flags.cursor_timeout_ms < 60000) {
    options.cursor_reap_interval = std::chrono::milliseconds(std::max<int64_t>(flags.cursor_timeout_ms / 4, 10));
  }
  auto engine = engine::Engine::Open(options);
  if (!engine.ok()) {
    std::cerr << "tigerdoc: cannot open data directory '" << flags.dbpath
              << "': " << engine.status().ToString() << "\n";
    return 1;
  }

  wire::ServerInfo info;
  for (int i = 0; i < argc; ++i) info.argv.emplace_back(argv[i]);
  info.bind_ip = flags.bind_ip;
  info.dbpath = flags.dbpath;
  info.cache_size_mb = flags.cache_size_mb;
  info.max_connections = flags.max_conns;
  info.auth = flags.auth;
  info.compressors = flags.compressors;
  wire::Dispatcher dispatcher(engine.value().get(), &info);

  wire::ServerOptions server_options;
  server_options.bind_ip = flags.bind_ip;
  server_options.port = flags.port;
  server_options.max_connections = flags.max_conns;
  server_options.tls = tls.value();
  RaiseFileLimit(flags.max_conns);
  wire::Server server(server_options, &dispatcher);
  Status started = server.Start();
  if (!started.ok()) {
    std::cerr << "tigerdoc: cannot listen on " << flags.bind_ip << ":" << flags.port << ": "
              << started.ToString() << "\n";
    return 1;
  }
  info.port = server.port();
  std::cout << "tigerdoc listening on " << flags.bind_ip << ":" << server.port() << std::endl;
  // The archive option's scheduled moves (patterns/archive/), beside the
  // engine's TTL monitor; stopped before the engine closes.
  patterns::archive::ArchiveScheduler archive_scheduler(engine.value().get());
  archive_scheduler.Start();
  server.Run();  // until SIGINT/SIGTERM
  archive_scheduler.Stop();
  std::cout << "tigerdoc shutting down" << std::endl;
  return 0;
}
