// wire/config: command-line flags, mongod's YAML config file, which wins,
// and the errors that name what is wrong.

#include "wire/config/server_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace tigerdoc::wire::config {
namespace {

StatusWith<CommandLine> Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "tigerdoc");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return ParseCommandLine(static_cast<int>(argv.size()), argv.data());
}

// A config file with `yaml` in a fresh temporary path, removed at the end.
class ConfigFile {
 public:
  explicit ConfigFile(const std::string& yaml) {
    char name[] = "/tmp/tigerdoc-config-XXXXXX";
    int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    close(fd);
    path_ = name;
    std::ofstream(path_) << yaml;
  }
  ~ConfigFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string ErrorOf(const std::string& yaml) {
  Flags flags;
  Status st = ApplyConfigYaml(yaml, "test.yaml", &flags);
  EXPECT_FALSE(st.ok()) << yaml;
  return st.reason();
}

TEST(ServerConfigTest, DefaultsWithoutArguments) {
  auto parsed = Parse({});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const Flags& f = parsed.value().flags;
  EXPECT_EQ(f.port, 27017);
  EXPECT_EQ(f.bind_ip, "127.0.0.1");
  EXPECT_EQ(f.dbpath, "./data");
  EXPECT_EQ(f.shards, 4);
  EXPECT_EQ(f.cache_size_mb, 1024);
  EXPECT_EQ(f.config_file, "");
}

TEST(ServerConfigTest, FlagsBothForms) {
  auto parsed = Parse({"--port", "0", "--bind_ip=0.0.0.0", "--dbpath", "/d", "--shards=8", "--cacheSizeMB", "16",
                       "--diskReserveMB", "0", "--maxConns", "5", "--setParameter", "cursorTimeoutMillis=250",
                       "--setParameter=ttlMonitorSleepSecs=2",
                       "--wiredTigerEngineConfigString", "eviction_dirty_target=30"});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const Flags& f = parsed.value().flags;
  EXPECT_EQ(f.port, 0);
  EXPECT_EQ(f.bind_ip, "0.0.0.0");
  EXPECT_EQ(f.dbpath, "/d");
  EXPECT_EQ(f.shards, 8);
  EXPECT_EQ(f.cache_size_mb, 16);
  EXPECT_EQ(f.disk_reserve_mb, 0);
  EXPECT_EQ(f.max_conns, 5);
  EXPECT_EQ(f.cursor_timeout_ms, 250);
  EXPECT_EQ(f.ttl_monitor_sleep_secs, 2);
  EXPECT_EQ(f.wiredtiger_config, "eviction_dirty_target=30");
}

TEST(ServerConfigTest, FlagErrorsNameTheFlag) {
  EXPECT_EQ(Parse({"--port", "65536"}).status().reason(), "invalid value for --port: '65536' (expected 0..65535)");
  EXPECT_TRUE(Parse({"--port", "65535"}).ok());
  EXPECT_EQ(Parse({"--shards", "0"}).status().reason(), "invalid value for --shards: '0' (expected 1..1024)");
  EXPECT_EQ(Parse({"--cacheSizeMB", "15"}).status().reason(),
            "invalid value for --cacheSizeMB: '15' (expected 16..1048576)");
  EXPECT_EQ(Parse({"--port"}).status().reason(), "missing value for --port");
  EXPECT_EQ(Parse({"--nope"}).status().reason(), "unknown option: --nope");
  EXPECT_EQ(Parse({"--setParameter", "noSuchParameter=1"}).status().reason(), "unknown parameter: noSuchParameter");
  EXPECT_EQ(Parse({"--setParameter", "cursorTimeoutMillis"}).status().reason(),
            "--setParameter takes NAME=VALUE, got 'cursorTimeoutMillis'");
  EXPECT_EQ(Parse({"--config"}).status().reason(), "missing value for --config");
  EXPECT_EQ(Parse({"--help", "--nope"}).value().action, Action::kHelp);
  EXPECT_EQ(Parse({"--version"}).value().action, Action::kVersion);
}

TEST(ServerConfigTest, MaxConcurrentCommands) {
  EXPECT_EQ(Parse({}).value().flags.max_concurrent_commands, 0);  // no limit
  EXPECT_EQ(Parse({"--maxConcurrentCommands", "0"}).value().flags.max_concurrent_commands, 0);
  EXPECT_EQ(Parse({"--maxConcurrentCommands=8"}).value().flags.max_concurrent_commands, 8);
  EXPECT_EQ(Parse({"--maxConcurrentCommands", "1000000"}).value().flags.max_concurrent_commands, 1000000);
  EXPECT_EQ(Parse({"--maxConcurrentCommands", "-1"}).status().reason(),
            "invalid value for --maxConcurrentCommands: '-1' (expected 0..1000000)");
  EXPECT_EQ(Parse({"--maxConcurrentCommands", "1000001"}).status().reason(),
            "invalid value for --maxConcurrentCommands: '1000001' (expected 0..1000000)");
}

TEST(ServerConfigTest, ReplicaSetAndChangeLogRetention) {
  auto parsed = Parse({"--replSet", "rs0", "--setParameter", "changeLogRetentionMB=1",
                       "--setParameter", "changeLogRetentionHours=0.5"});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().flags.repl_set_name, "rs0");
  EXPECT_EQ(parsed.value().flags.change_log_retention_mb, 1);
  EXPECT_EQ(parsed.value().flags.change_log_retention_hours, 0.5);
  EXPECT_EQ(Parse({}).value().flags.repl_set_name, "");
  EXPECT_EQ(Parse({"--replSet", ""}).status().reason(), "--replSet needs a replica set name");
  EXPECT_EQ(Parse({"--setParameter", "changeLogRetentionMB=0"}).status().reason(),
            "invalid value for changeLogRetentionMB: '0' (expected 1..1000000000)");
  EXPECT_EQ(Parse({"--setParameter", "changeLogRetentionHours=0"}).status().reason(),
            "invalid value for changeLogRetentionHours: '0' (expected a number above 0)");
  Flags flags;
  ASSERT_TRUE(ApplyConfigYaml("replication:\n  replSetName: rs1\n", "test.yaml", &flags).ok());
  EXPECT_EQ(flags.repl_set_name, "rs1");
}

TEST(ServerConfigTest, MongodConfigFile) {
  ConfigFile file(R"(# a mongod.conf as mongod's documentation writes it
storage:
  dbPath: /var/lib/tigerdoc
  journal:
    enabled: true
  wiredTiger:
    engineConfig:
      cacheSizeGB: 0.5
      configString: "eviction_dirty_target=30,eviction_dirty_trigger=60"
net:
  port: 27555
  bindIp: 127.0.0.1,::1
  maxIncomingConnections: 200
processManagement:
  fork: false
setParameter:
  cursorTimeoutMillis: 30000
  ttlMonitorSleepSecs: 5
tigerdoc:
  shards: 16
  diskReserveMB: 64
)");
  auto parsed = Parse({"-f", file.path()});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  const Flags& f = parsed.value().flags;
  EXPECT_EQ(f.config_file, file.path());
  EXPECT_EQ(f.dbpath, "/var/lib/tigerdoc");
  EXPECT_EQ(f.cache_size_mb, 512);
  EXPECT_EQ(f.wiredtiger_config, "eviction_dirty_target=30,eviction_dirty_trigger=60");
  EXPECT_EQ(f.port, 27555);
  EXPECT_EQ(f.bind_ip, "127.0.0.1,::1");
  EXPECT_EQ(f.max_conns, 200);
  EXPECT_EQ(f.cursor_timeout_ms, 30000);
  EXPECT_EQ(f.ttl_monitor_sleep_secs, 5);
  EXPECT_EQ(f.shards, 16);
  EXPECT_EQ(f.disk_reserve_mb, 64);
}

TEST(ServerConfigTest, FlagsOverrideTheFileWhateverTheirOrder) {
  ConfigFile file("net:\n  port: 27555\n  bindIpAll: true\nstorage:\n  dbPath: /from/file\n");
  auto before = Parse({"--port", "28000", "--config", file.path()});
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(before.value().flags.port, 28000);
  EXPECT_EQ(before.value().flags.bind_ip, "0.0.0.0");
  EXPECT_EQ(before.value().flags.dbpath, "/from/file");
  auto after = Parse({"--config=" + file.path(), "--dbpath", "/from/flag"});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after.value().flags.port, 27555);
  EXPECT_EQ(after.value().flags.dbpath, "/from/flag");
}

TEST(ServerConfigTest, UnknownKeysAreRefusedByTheirPath) {
  EXPECT_EQ(ErrorOf("security:\n  keyFile: /etc/key\n"),
            "config file test.yaml: unknown option security.keyFile (tigerdoc supports: see README.md \"Config file\")");
  EXPECT_EQ(ErrorOf("net:\n  port: 1\n  compression:\n    zlibCompressionLevel: 6\n"),
            "config file test.yaml: unknown option net.compression.zlibCompressionLevel (tigerdoc supports: see "
            "README.md \"Config file\")");
  EXPECT_EQ(ErrorOf("storage:\n  wiredTiger:\n    engineConfig:\n      journalCompressor: zstd\n"),
            "config file test.yaml: unknown option storage.wiredTiger.engineConfig.journalCompressor (tigerdoc "
            "supports: see README.md \"Config file\")");
  EXPECT_EQ(ErrorOf("setParameter:\n  enableLocalhostAuthBypass: false\n"),
            "config file test.yaml: setParameter.enableLocalhostAuthBypass: unknown parameter: "
            "enableLocalhostAuthBypass");
}

// The security keys (README.md "Security") and their flags.
TEST(ServerConfigTest, SecurityKeysAndFlags) {
  Flags flags;
  ASSERT_TRUE(ApplyConfigYaml("security:\n  authorization: enabled\nnet:\n  compression:\n"
                              "    compressors: zstd,zlib\n  tls:\n    mode: requireTLS\n"
                              "    certificateKeyFile: /s.pem\n    CAFile: /ca.pem\n"
                              "    allowConnectionsWithoutCertificates: true\n",
                              "test.yaml", &flags)
                  .ok());
  EXPECT_TRUE(flags.auth);
  EXPECT_EQ(flags.compressors, (std::vector<std::string>{"zstd", "zlib"}));
  EXPECT_EQ(flags.tls_mode, "requireTLS");
  EXPECT_EQ(flags.tls_certificate_key_file, "/s.pem");
  EXPECT_EQ(flags.tls_ca_file, "/ca.pem");
  EXPECT_TRUE(flags.tls_allow_connections_without_certificates);
  EXPECT_EQ(ErrorOf("security:\n  authorization: yes\n"),
            "config file test.yaml: security.authorization must be enabled or disabled, got 'yes'");
  EXPECT_EQ(ErrorOf("net:\n  tls:\n    mode: sometimes\n"),
            "config file test.yaml: invalid value for net.tls.mode: 'sometimes' (expected disabled, allowTLS, "
            "preferTLS or requireTLS)");
  auto parsed = Parse({"--auth", "--networkMessageCompressors", "disabled", "--tlsMode", "allowTLS",
                       "--tlsCertificateKeyFile", "/k.pem", "--tlsCAFile", "/c.pem",
                       "--tlsAllowConnectionsWithoutCertificates"});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_TRUE(parsed.value().flags.auth);
  EXPECT_TRUE(parsed.value().flags.compressors.empty());
  EXPECT_EQ(parsed.value().flags.tls_mode, "allowTLS");
  EXPECT_EQ(parsed.value().flags.tls_ca_file, "/c.pem");
  EXPECT_FALSE(Parse({"--networkMessageCompressors", "lz4"}).ok());
  EXPECT_FALSE(Parse({"--tlsMode", "on"}).ok());
}

TEST(ServerConfigTest, BadValuesAreRefusedByTheirPath) {
  EXPECT_EQ(ErrorOf("net:\n  port: 70000\n"),
            "config file test.yaml: invalid value for net.port: '70000' (expected 0..65535)");
  EXPECT_EQ(ErrorOf("net:\n  port: [1, 2]\n"), "config file test.yaml: net.port must be a single value");
  EXPECT_EQ(ErrorOf("net: 5\n"), "config file test.yaml: net must be a map");
  EXPECT_EQ(ErrorOf("processManagement:\n  fork: true\n"),
            "config file test.yaml: processManagement.fork: true is not supported: tigerdoc stays in the "
            "foreground; run it under systemd, in a container or with nohup");
  EXPECT_EQ(ErrorOf("storage:\n  journal:\n    enabled: false\n"),
            "config file test.yaml: storage.journal.enabled: false is not supported: tigerdoc always journals");
  EXPECT_EQ(ErrorOf("net:\n  bindIpAll: maybe\n"), "config file test.yaml: net.bindIpAll must be true or false");
  // cacheSizeGB: mongod's range, just below, at and above its ends.
  EXPECT_EQ(ErrorOf("storage:\n  wiredTiger:\n    engineConfig:\n      cacheSizeGB: 0.24\n"),
            "config file test.yaml: invalid value for storage.wiredTiger.engineConfig.cacheSizeGB: '0.24' "
            "(expected 0.25..10000)");
  Flags flags;
  ASSERT_TRUE(ApplyConfigYaml("storage:\n  wiredTiger:\n    engineConfig:\n      cacheSizeGB: 0.25\n", "t", &flags).ok());
  EXPECT_EQ(flags.cache_size_mb, 256);
  EXPECT_FALSE(ApplyConfigYaml("storage:\n  wiredTiger:\n    engineConfig:\n      cacheSizeGB: 10001\n", "t", &flags).ok());
  EXPECT_EQ(ErrorOf("net:\n  port: 1\n   bad indent: x\n").rfind("config file test.yaml: ", 0), 0u);
  EXPECT_EQ(ErrorOf("- a\n- b\n"), "config file test.yaml: the top level must be a map of sections");
}

TEST(ServerConfigTest, LogSettingsFromFlagsAndFile) {
  auto parsed = Parse({"--logpath", "/var/log/t.log", "--logappend", "-vvv", "--quiet", "--slowms", "250"});
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().flags.log_path, "/var/log/t.log");
  EXPECT_TRUE(parsed.value().flags.log_append);
  EXPECT_EQ(parsed.value().flags.verbosity, 3);
  EXPECT_TRUE(parsed.value().flags.quiet);
  EXPECT_EQ(parsed.value().flags.slow_ms, 250);
  EXPECT_EQ(Parse({"-vvvvvv"}).status().reason(), "unknown option: -vvvvvv");
  EXPECT_EQ(Parse({"--verbose"}).value().flags.verbosity, 1);

  Flags flags;
  ASSERT_TRUE(ApplyConfigYaml("systemLog:\n  destination: file\n  path: /l/m.log\n  logAppend: true\n"
                              "  verbosity: 5\n  quiet: true\noperationProfiling:\n  slowOpThresholdMs: 20\n"
                              "  mode: off\n",
                              "t", &flags).ok());
  EXPECT_EQ(flags.log_path, "/l/m.log");
  EXPECT_TRUE(flags.log_append);
  EXPECT_EQ(flags.verbosity, 5);
  EXPECT_TRUE(flags.quiet);
  EXPECT_EQ(flags.slow_ms, 20);
  EXPECT_EQ(ErrorOf("systemLog:\n  verbosity: 6\n"),
            "config file test.yaml: invalid value for systemLog.verbosity: '6' (expected 0..5)");
  EXPECT_EQ(ErrorOf("systemLog:\n  destination: syslog\n"),
            "config file test.yaml: systemLog.destination: syslog is not supported: use file or stdout");
  EXPECT_EQ(ErrorOf("systemLog:\n  component:\n    query:\n      verbosity: 2\n"),
            "config file test.yaml: unknown option systemLog.component.query.verbosity (tigerdoc supports: see "
            "README.md \"Config file\")");
  EXPECT_EQ(ErrorOf("operationProfiling:\n  mode: sometimes\n"),
            "config file test.yaml: operationProfiling.mode must be off, slowOp or all, got 'sometimes'");
  EXPECT_EQ(ErrorOf("operationProfiling:\n  slowOpSampleRate: 1.5\n"),
            "config file test.yaml: invalid value for operationProfiling.slowOpSampleRate: '1.5' (expected a "
            "number from 0 to 1)");
}

TEST(ServerConfigTest, ProfilingFromFileAndFlags) {
  Flags flags;
  ASSERT_TRUE(ApplyConfigYaml("operationProfiling:\n  mode: slowOp\n  slowOpSampleRate: 0.5\n", "t", &flags).ok());
  EXPECT_EQ(flags.profile_level, 1);
  EXPECT_DOUBLE_EQ(flags.slow_op_sample_rate, 0.5);
  ASSERT_TRUE(ApplyConfigYaml("operationProfiling:\n  mode: all\n", "t", &flags).ok());
  EXPECT_EQ(flags.profile_level, 2);
  ASSERT_TRUE(ApplyConfigYaml("operationProfiling:\n  mode: off\n", "t", &flags).ok());
  EXPECT_EQ(flags.profile_level, 0);
  auto parsed = Parse({"--profile", "2", "--slowOpSampleRate", "0.25"});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed.value().flags.profile_level, 2);
  EXPECT_DOUBLE_EQ(parsed.value().flags.slow_op_sample_rate, 0.25);
  EXPECT_FALSE(Parse({"--profile", "3"}).ok());
  EXPECT_FALSE(Parse({"--profile", "-1"}).ok());
  EXPECT_FALSE(Parse({"--slowOpSampleRate", "-0.1"}).ok());
}

TEST(ServerConfigTest, EmptyFileAndEmptySectionsChangeNothing) {
  Flags flags;
  EXPECT_TRUE(ApplyConfigYaml("", "t", &flags).ok());
  EXPECT_TRUE(ApplyConfigYaml("net:\nstorage:\n", "t", &flags).ok());
  EXPECT_EQ(flags.port, 27017);
}

TEST(ServerConfigTest, ReplicaSetNameFromFlagOrFile) {
  auto standalone = Parse({});
  ASSERT_TRUE(standalone.ok());
  EXPECT_EQ(standalone.value().flags.repl_set_name, "");
  EXPECT_EQ(standalone.value().flags.transaction_lifetime_limit_secs, 60);
  auto flag = Parse({"--replSet", "rs0", "--setParameter", "transactionLifetimeLimitSeconds=5"});
  ASSERT_TRUE(flag.ok()) << flag.status().ToString();
  EXPECT_EQ(flag.value().flags.repl_set_name, "rs0");
  EXPECT_EQ(flag.value().flags.transaction_lifetime_limit_secs, 5);
  Flags flags;
  ASSERT_TRUE(ApplyConfigYaml("replication:\n  replSetName: web\n", "test.yaml", &flags).ok());
  EXPECT_EQ(flags.repl_set_name, "web");
  EXPECT_FALSE(Parse({"--replSet", ""}).ok());
  EXPECT_FALSE(Parse({"--setParameter", "transactionLifetimeLimitSeconds=0"}).ok());
}

TEST(ServerConfigTest, MissingFileIsAnError) {
  auto parsed = Parse({"--config", "/nonexistent/tigerdoc.conf"});
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().reason(), "cannot read config file /nonexistent/tigerdoc.conf: No such file or directory");
}

}  // namespace
}  // namespace tigerdoc::wire::config
