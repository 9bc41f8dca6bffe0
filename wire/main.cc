// tigerdoc: flags (and config file) -> patterns -> Engine::Open -> Server::Run.

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "engine/changes/pre_and_post_images.h"
#include "engine/engine.h"
#include "engine/log/log.h"
#include "engine/write/pattern_registry.h"
#include "patterns/archive/archive_pattern.h"
#include "patterns/archive/archive_scheduler.h"
#include "patterns/bucket/bucket_pattern.h"
#include "patterns/discriminator/discriminator_pattern.h"
#include "patterns/outlier/outlier_pattern.h"
#include "patterns/size_limits/size_limits_pattern.h"
#include "patterns/subset/subset_pattern.h"
#include "wire/commands/profiler.h"
#include "wire/commands/dispatcher.h"
#include "wire/config/server_config.h"
#include "wire/server/execution_gate.h"
#include "wire/server/server.h"
#include "wire/server/tls.h"

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
  // Not a pattern: MongoDB's collection option, owned through the registry.
  registry->Add(engine::MakePreAndPostImagesOption());
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

// SIGUSR1 rotates the log, as mongod's. Blocked in every thread (call
// before any starts) and taken by one thread with sigwait, so rotation runs
// outside a signal handler.
void RotateLogOnSigusr1() {
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, nullptr);
  std::thread([usr1] {
    tigerdoc::log::SetThreadContext("signalProcessingThread");
    for (;;) {
      int sig = 0;
      if (sigwait(&usr1, &sig) != 0) continue;
      tigerdoc::Status rotated = tigerdoc::log::Rotate();
      tigerdoc::bson::BsonDoc attr;
      BSON_APPEND_UTF8(attr.mutable_get(), "status", rotated.ok() ? "ok" : rotated.ToString().c_str());
      tigerdoc::log::Write(rotated.ok() ? tigerdoc::log::Severity::kInfo : tigerdoc::log::Severity::kError,
                           "CONTROL", 23166, "Log rotation initiated by SIGUSR1", attr.get());
    }
  }).detach();
}

// The start-up line: what this server is and how it was configured.
void LogStarting(const Flags& flags, int argc, char** argv) {
  using namespace tigerdoc;
  bson::BsonDoc attr;
  BSON_APPEND_INT32(attr.mutable_get(), "pid", static_cast<int32_t>(getpid()));
  BSON_APPEND_INT32(attr.mutable_get(), "port", flags.port);
  BSON_APPEND_UTF8(attr.mutable_get(), "dbPath", flags.dbpath.c_str());
  if (!flags.config_file.empty()) BSON_APPEND_UTF8(attr.mutable_get(), "config", flags.config_file.c_str());
  bson_t args;
  bson_append_array_begin(attr.mutable_get(), "argv", -1, &args);
  for (int i = 0; i < argc; ++i) BSON_APPEND_UTF8(&args, std::to_string(i).c_str(), argv[i]);
  bson_append_array_end(attr.mutable_get(), &args);
  log::Write(log::Severity::kInfo, "CONTROL", 4615611, "tigerdoc starting", attr.get());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tigerdoc;
  Flags flags = ParseFlags(argc, argv);
  log::Options log_options;
  log_options.path = flags.log_path;
  log_options.append = flags.log_append;
  log_options.verbosity = flags.verbosity;
  log_options.quiet = flags.quiet;
  log_options.slow_ms = flags.slow_ms;
  if (Status logging = log::Configure(log_options); !logging.ok()) Die(logging.reason());
  wire::ConfigureProfiler(flags.profile_level, flags.slow_op_sample_rate);
  RotateLogOnSigusr1();
  LogStarting(flags, argc, argv);

  wire::TlsOptions tls_options;
  tls_options.mode = wire::ParseTlsMode(flags.tls_mode).value();  // checked while parsing
  tls_options.certificate_key_file = flags.tls_certificate_key_file;
  tls_options.ca_file = flags.tls_ca_file;
  tls_options.allow_connections_without_certificates = flags.tls_allow_connections_without_certificates;
  auto tls = wire::TlsContext::Create(tls_options);
  if (!tls.ok()) Die(tls.status().reason());

  engine::EngineOptions options;
  options.storage.dbpath = flags.dbpath;
  options.storage.cache_size_mb = flags.cache_size_mb;
  options.storage.wiredtiger_config = flags.wiredtiger_config;
  options.storage.disk_reserve_mb = flags.disk_reserve_mb;
  options.default_shards = flags.shards;
  options.patterns = MakePatternRegistry();
  options.ttl_monitor_sleep = std::chrono::seconds(flags.ttl_monitor_sleep_secs);
  options.change_log_retention_mb = flags.change_log_retention_mb;
  options.change_log_retention_hours = flags.change_log_retention_hours;
  options.cursor_timeout = std::chrono::milliseconds(flags.cursor_timeout_ms);
  if (flags.cursor_timeout_ms < 60000) {
    options.cursor_reap_interval = std::chrono::milliseconds(std::max<int64_t>(flags.cursor_timeout_ms / 4, 10));
  }
  auto engine = engine::Engine::Open(options);
  if (!engine.ok()) {
    std::cerr << "tigerdoc: cannot open data directory '" << flags.dbpath
              << "': " << engine.status().ToString() << "\n";
    bson::BsonDoc attr;
    BSON_APPEND_UTF8(attr.mutable_get(), "dbPath", flags.dbpath.c_str());
    BSON_APPEND_UTF8(attr.mutable_get(), "error", engine.status().ToString().c_str());
    log::Write(log::Severity::kFatal, "STORAGE", 28595, "cannot open the data directory", attr.get());
    return 1;
  }

  wire::ServerInfo info;
  for (int i = 0; i < argc; ++i) info.argv.emplace_back(argv[i]);
  info.bind_ip = flags.bind_ip;
  info.dbpath = flags.dbpath;
  info.cache_size_mb = flags.cache_size_mb;
  info.max_connections = flags.max_conns;
  info.repl_set_name = flags.repl_set_name;
  engine.value()->clock().Tick();  // cluster times start at the wall clock
  // Only a replica set member serves change streams (a standalone answers
  // 40573, as mongod, whose standalone keeps no oplog): recording every
  // change of a standalone cost about a third of an insert's CPU (#18).
  if (flags.repl_set_name.empty()) engine.value()->catalog().SetChangeRecorder(nullptr);
  engine.value()->sessions().transaction_lifetime_limit_secs.store(flags.transaction_lifetime_limit_secs);
  info.auth = flags.auth;
  info.compressors = flags.compressors;
  {
    wire::Dispatcher dispatcher(engine.value().get(), &info);

    wire::ServerOptions server_options;
    server_options.bind_ip = flags.bind_ip;
    server_options.port = flags.port;
    server_options.max_connections = flags.max_conns;
    wire::ExecutionGate::ConfigureGlobal(static_cast<int>(flags.max_concurrent_commands));
    if (flags.long_work_slots >= 0) {
      engine.value()->operations().long_work().SetSlots(static_cast<int>(flags.long_work_slots));
    }
    server_options.tls = tls.value();
    RaiseFileLimit(flags.max_conns);
    wire::Server server(server_options, &dispatcher);
    Status started = server.Start();
    if (!started.ok()) {
      std::cerr << "tigerdoc: cannot listen on " << flags.bind_ip << ":" << flags.port << ": "
                << started.ToString() << "\n";
      bson::BsonDoc attr;
      BSON_APPEND_UTF8(attr.mutable_get(), "error", started.ToString().c_str());
      log::Write(log::Severity::kFatal, "NETWORK", 22952, "cannot listen", attr.get());
      return 1;
    }
    info.port = server.port();
    {
      bson::BsonDoc listening;
      const std::string address = flags.bind_ip + ":" + std::to_string(server.port());
      BSON_APPEND_UTF8(listening.mutable_get(), "address", address.c_str());
      log::Write(log::Severity::kInfo, "NETWORK", 23015, "Listening on", listening.get());
      // The ready line (tests wait for "Waiting for connections").
      bson::BsonDoc waiting;
      BSON_APPEND_INT32(waiting.mutable_get(), "port", server.port());
      BSON_APPEND_UTF8(waiting.mutable_get(), "ssl", flags.tls_mode == "disabled" ? "off" : "on");
      log::Write(log::Severity::kInfo, "NETWORK", 23016, "Waiting for connections", waiting.get());
      log::MarkStartupComplete();
    }
    // The archive option's scheduled moves (patterns/archive/), beside the
    // engine's TTL monitor; stopped before the engine closes.
    patterns::archive::ArchiveScheduler archive_scheduler(engine.value().get());
    archive_scheduler.Start();
    log::SetThreadContext("listener");  // this thread accepts connections now, as mongod's
    server.Run();                       // until SIGINT/SIGTERM
    log::SetThreadContext("main");
    archive_scheduler.Stop();
    log::Write(log::Severity::kInfo, "CONTROL", 4784900, "Stopped accepting; closing the storage engine");
  }
  // Closing WiredTiger flushes the journal and takes a checkpoint.
  engine.value().reset();
  bson::BsonDoc exit_attr;
  BSON_APPEND_INT32(exit_attr.mutable_get(), "exitCode", 0);
  log::Write(log::Severity::kInfo, "CONTROL", 23138, "Shutting down", exit_attr.get());
  return 0;
}
