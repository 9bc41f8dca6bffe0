#pragma once
// The server's configuration, as mongod takes it: command-line flags and
// mongod's YAML config file (--config FILE / -f FILE), the flags overriding
// the file whatever their order. Everything here is parsing: nothing opens,
// listens or exits. A bad flag, a bad value or a key of the file that
// tigerdoc does not have is an error whose message names it (the key by its
// dotted path, e.g. "security.authorization"), never ignored.
//
// The file (README.md "Config file"): net.port, net.bindIp, net.bindIpAll,
// net.maxIncomingConnections, storage.dbPath,
// storage.wiredTiger.engineConfig.cacheSizeGB, storage.journal.enabled (true
// only: tigerdoc always journals), processManagement.fork (false only),
// setParameter.<name>, systemLog.destination (file / stdout; syslog refused),
// systemLog.path, systemLog.logAppend, systemLog.verbosity, systemLog.quiet,
// operationProfiling.slowOpThresholdMs, operationProfiling.mode,
// operationProfiling.slowOpSampleRate, security.authorization, net.compression.compressors,
// net.tls.mode, net.tls.certificateKeyFile, net.tls.CAFile,
// net.tls.allowConnectionsWithoutCertificates, and tigerdoc's own section `tigerdoc:` (shards,
// cacheSizeMB, diskReserveMB).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::wire::config {

// Each member's flag and config key are in kUsage and the header above.
struct Flags {
  int port = 27017;
  std::string bind_ip = "127.0.0.1";
  std::string dbpath = "./data";
  int shards = 4;
  int64_t cache_size_mb = 1024;
  // --wiredTigerEngineConfigString; storage.wiredTiger.engineConfig.configString.
  std::string wiredtiger_config;
  int64_t cursor_timeout_ms = 600000;
  int64_t ttl_monitor_sleep_secs = 60;
  int64_t max_conns = 1000000;  // mongod's default
  int64_t long_work_slots = -1;  // engine/long_work_admission.h; -1: the cores, 0: off
  int64_t max_concurrent_commands = 0;  // wire/server/execution_gate.h; 0: no limit
  int64_t disk_reserve_mb = tigerdoc::storage::StorageOptions::kAutoDiskReserve;
  std::string config_file;  // --config / -f, empty when none
  // The log (engine/log/log.h): systemLog.* and operationProfiling.slowOpThresholdMs.
  std::string log_path;     // --logpath; empty: stdout
  bool log_append = false;  // --logappend
  int verbosity = 0;        // -v .. -vvvvv, --verbose
  bool quiet = false;       // --quiet
  int64_t slow_ms = 100;    // --slowms
  int profile_level = 0;            // --profile; operationProfiling.mode
  double slow_op_sample_rate = 1.0;  // --slowOpSampleRate; operationProfiling.slowOpSampleRate
  std::string repl_set_name;  // --replSet, replication.replSetName; empty: a standalone
  int64_t transaction_lifetime_limit_secs = 60;  // setParameter transactionLifetimeLimitSeconds
  // The change log's retention (setParameter changeLogRetentionMB / Hours).
  int64_t change_log_retention_mb = 1024;
  double change_log_retention_hours = 24;
  // Security (README.md "Security").
  bool auth = false;  // --auth; security.authorization: enabled
  // --networkMessageCompressors; net.compression.compressors. Empty: disabled.
  std::vector<std::string> compressors = {"snappy", "zstd", "zlib"};
  std::string tls_mode = "disabled";   // --tlsMode; net.tls.mode
  std::string tls_certificate_key_file;  // --tlsCertificateKeyFile; net.tls.certificateKeyFile
  std::string tls_ca_file;               // --tlsCAFile; net.tls.CAFile
  // --tlsAllowConnectionsWithoutCertificates; net.tls.allowConnectionsWithoutCertificates
  bool tls_allow_connections_without_certificates = false;
};

// What the command line asks for: run the server, or print help/version.
enum class Action { kRun, kHelp, kVersion };

struct CommandLine {
  Action action = Action::kRun;
  Flags flags;
};

// The text of --help.
extern const char* const kUsage;
// The line of --version.
extern const char* const kVersion;

// Parses argv[1..argc): reads the config file that --config/-f names first,
// then applies every flag on top of it.
StatusWith<CommandLine> ParseCommandLine(int argc, const char* const* argv);

// Applies the YAML text of a config file to *flags; `source` (the file's
// path) prefixes error messages.
Status ApplyConfigYaml(std::string_view yaml, const std::string& source, Flags* flags);

}  // namespace tigerdoc::wire::config
