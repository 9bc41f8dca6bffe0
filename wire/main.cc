// tigerdoc: flags (and config file) -> patterns -> Engine::Open -> Server::Run.

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
#include "wire/config/server_config.h"
#include "wire/server/server.h"

namespace {

namespace config = tigerdoc::wire::config;  // flags and config file
using config::Flags;

[[noreturn]] void Die(const std::string& message) {
  std::cerr << "tigerdoc: " << message << "\n" << "Try 'tigerdoc --help'.\n";
  std::exit(2);
}

Flags ParseFlags(int argc, char** argv) {
  auto parsed = config::ParseCommandLine(argc, argv);
  if (!parsed.ok()) Die(parsed.status().reason());
  switch (parsed.value().action) {
    case config::Action::kHelp:
      std::cout << config::kUsage;
      std::exit(0);
    case config::Action::kVersion:
      std::cout << config::kVersion << "\n";
      std::exit(0);
    case config::Action::kRun:
      break;
  }
  return parsed.value().flags;
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
  wire::Dispatcher dispatcher(engine.value().get(), &info);

  wire::ServerOptions server_options;
  server_options.bind_ip = flags.bind_ip;
  server_options.port = flags.port;
  server_options.max_connections = flags.max_conns;
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
