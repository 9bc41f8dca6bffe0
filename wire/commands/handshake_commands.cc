// The commands drivers and mongosh send on connecting and for diagnostics:
// hello/isMaster, ping, buildInfo, getParameter, getCmdLineOpts, hostInfo,
// serverStatus, whatsmyuri, connectionStatus (getLog: log_commands.cc; sessions:
// session_commands.cc).

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "engine/base/wall_clock.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"
#include "wire/commands/server_facts.h"
#include "wire/commands/server_metrics.h"
#include "wire/commands/server_parameters.h"

namespace tigerdoc::wire {
namespace {

std::string HostName() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace

StatusWith<bson::BsonDoc> RunHello(CommandContext& ctx) {
  ASSIGN_OR_RETURN(std::optional<bool> hello_ok, GetBool(ctx.body(), ctx.name, "helloOk"));
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  if (hello_ok.value_or(false)) BSON_APPEND_BOOL(doc, "helloOk", true);
  // `hello` says isWritablePrimary; the legacy names say ismaster.
  BSON_APPEND_BOOL(doc, ctx.name == "hello" ? "isWritablePrimary" : "ismaster", true);
  BSON_APPEND_INT32(doc, "maxBsonObjectSize", kMaxBsonObjectSize);
  BSON_APPEND_INT32(doc, "maxMessageSizeBytes", kMaxMessageSizeBytes);
  BSON_APPEND_INT32(doc, "maxWriteBatchSize", kMaxWriteBatchSize);
  BSON_APPEND_DATE_TIME(doc, "localTime", WallClockMillis());
  BSON_APPEND_INT32(doc, "logicalSessionTimeoutMinutes", kLogicalSessionTimeoutMinutes);
  BSON_APPEND_INT64(doc, "connectionId", ctx.connection.connection_id);
  BSON_APPEND_INT32(doc, "minWireVersion", kMinWireVersion);
  BSON_APPEND_INT32(doc, "maxWireVersion", kMaxWireVersion);
  BSON_APPEND_BOOL(doc, "readOnly", false);
  if (!ctx.server->repl_set_name.empty()) RETURN_IF_ERROR(AppendReplicaSetHello(ctx, doc));
  RETURN_IF_ERROR(AppendHelloSecurityFields(ctx, doc));
  return out;
}

StatusWith<bson::BsonDoc> RunPing(CommandContext&) { return bson::BsonDoc(); }

StatusWith<bson::BsonDoc> RunBuildInfo(CommandContext&) {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "version", kCompatibleMongoVersion);
  BSON_APPEND_UTF8(doc, "gitVersion", "tigerdoc");
  BSON_APPEND_UTF8(doc, "tigerdocVersion", kTigerdocVersion);
  bson_t modules, version_array, storage_engines, build_env;
  bson_append_array_begin(doc, "modules", -1, &modules);
  bson_append_array_end(doc, &modules);
  BSON_APPEND_UTF8(doc, "allocator", "system");
  BSON_APPEND_UTF8(doc, "javascriptEngine", "none");
  BSON_APPEND_UTF8(doc, "sysInfo", "deprecated");
  bson_append_array_begin(doc, "versionArray", -1, &version_array);
  for (int i = 0; i < 4; ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_INT32(&version_array, key.c_str(), kCompatibleVersionArray[i]);
  }
  bson_append_array_end(doc, &version_array);
  bson_append_document_begin(doc, "buildEnvironment", -1, &build_env);
  BSON_APPEND_UTF8(&build_env, "target_os", "linux");
  BSON_APPEND_UTF8(&build_env, "target_arch", "x86_64");
  bson_append_document_end(doc, &build_env);
  BSON_APPEND_INT32(doc, "bits", 64);
  BSON_APPEND_BOOL(doc, "debug", false);
  BSON_APPEND_INT32(doc, "maxBsonObjectSize", kMaxBsonObjectSize);
  bson_append_array_begin(doc, "storageEngines", -1, &storage_engines);
  BSON_APPEND_UTF8(&storage_engines, "0", "wiredTiger");
  bson_append_array_end(doc, &storage_engines);
  return out;
}

// getParameter and setParameter: one table in server_parameters.cc.
StatusWith<bson::BsonDoc> RunGetParameter(CommandContext& ctx) { return GetServerParameters(ctx); }
StatusWith<bson::BsonDoc> RunSetParameter(CommandContext& ctx) { return SetServerParameters(ctx); }

StatusWith<bson::BsonDoc> RunGetCmdLineOpts(CommandContext& ctx) {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  bson_t argv, parsed, net, storage;
  bson_append_array_begin(doc, "argv", -1, &argv);
  for (size_t i = 0; i < ctx.server->argv.size(); ++i) {
    std::string key = std::to_string(i);
    BSON_APPEND_UTF8(&argv, key.c_str(), ctx.server->argv[i].c_str());
  }
  bson_append_array_end(doc, &argv);
  bson_append_document_begin(doc, "parsed", -1, &parsed);
  bson_append_document_begin(&parsed, "net", -1, &net);
  BSON_APPEND_UTF8(&net, "bindIp", ctx.server->bind_ip.c_str());
  BSON_APPEND_INT32(&net, "port", ctx.server->port);
  bson_append_document_end(&parsed, &net);
  bson_append_document_begin(&parsed, "storage", -1, &storage);
  BSON_APPEND_UTF8(&storage, "dbPath", ctx.server->dbpath.c_str());
  bson_append_document_end(&parsed, &storage);
  if (ctx.server->auth) {
    bson_t security;
    bson_append_document_begin(&parsed, "security", -1, &security);
    BSON_APPEND_UTF8(&security, "authorization", "enabled");
    bson_append_document_end(&parsed, &security);
  }
  bson_append_document_end(doc, &parsed);
  return out;
}

StatusWith<bson::BsonDoc> RunHostInfo(CommandContext&) {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  struct utsname uts;
  uname(&uts);
  long pages = sysconf(_SC_PHYS_PAGES);
  long page_size = sysconf(_SC_PAGE_SIZE);
  bson_t system, os, extra;
  bson_append_document_begin(doc, "system", -1, &system);
  BSON_APPEND_DATE_TIME(&system, "currentTime", WallClockMillis());
  BSON_APPEND_UTF8(&system, "hostname", HostName().c_str());
  BSON_APPEND_INT32(&system, "cpuAddrSize", 64);
  BSON_APPEND_INT64(&system, "memSizeMB", static_cast<int64_t>(pages) * page_size / (1024 * 1024));
  BSON_APPEND_INT32(&system, "numCores", static_cast<int32_t>(std::thread::hardware_concurrency()));
  BSON_APPEND_UTF8(&system, "cpuArch", uts.machine);
  bson_append_document_end(doc, &system);
  bson_append_document_begin(doc, "os", -1, &os);
  BSON_APPEND_UTF8(&os, "type", "Linux");
  BSON_APPEND_UTF8(&os, "name", uts.sysname);
  BSON_APPEND_UTF8(&os, "version", uts.release);
  bson_append_document_end(doc, &os);
  bson_append_document_begin(doc, "extra", -1, &extra);
  bson_append_document_end(doc, &extra);
  return out;
}

namespace {

// serverStatus.longWork (engine/long_work_admission.h), named after
// MongoDB's ticket sections (queues.execution: out, available,
// totalTickets) but saying what they count: the slots, those held now, the
// commands waiting, and since start-up the commands admitted, the slots
// handed over by yields, the waits ended by a stalled queue (ran without a
// slot) and by killOp/maxTimeMS/shutdown.
void AppendLongWorkStatus(const engine::LongWorkAdmission::Stats& s, bson_t* doc) {
  bson_t section;
  bson_append_document_begin(doc, "longWork", -1, &section);
  BSON_APPEND_INT32(&section, "slots", s.slots);
  BSON_APPEND_INT32(&section, "inUse", s.in_use);
  BSON_APPEND_INT32(&section, "waiting", s.waiting);
  BSON_APPEND_INT64(&section, "admitted", s.admitted);
  BSON_APPEND_INT64(&section, "yields", s.yields);
  BSON_APPEND_INT64(&section, "waitTimeouts", s.wait_timeouts);
  BSON_APPEND_INT64(&section, "interruptedWaits", s.interrupted_waits);
  bson_append_document_end(doc, &section);
}

}  // namespace

StatusWith<bson::BsonDoc> RunServerStatus(CommandContext& ctx) {
  auto now = std::chrono::system_clock::now();
  int64_t uptime_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now - ctx.server->start_time).count();
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "host", HostName().c_str());
  BSON_APPEND_UTF8(doc, "version", kCompatibleMongoVersion);
  BSON_APPEND_UTF8(doc, "process", "tigerdoc");
  BSON_APPEND_INT64(doc, "pid", getpid());
  BSON_APPEND_DOUBLE(doc, "uptime", static_cast<double>(uptime_ms / 1000));
  BSON_APPEND_INT64(doc, "uptimeMillis", uptime_ms);
  BSON_APPEND_INT64(doc, "uptimeEstimate", uptime_ms / 1000);
  BSON_APPEND_DATE_TIME(doc, "localTime", WallClockMillis());
  bson_t connections, storage_engine, metrics;
  bson_append_document_begin(doc, "connections", -1, &connections);
  BSON_APPEND_INT32(&connections, "current", static_cast<int32_t>(ctx.server->current_connections.load()));
  BSON_APPEND_INT32(&connections, "available",
                    static_cast<int32_t>(std::max<int64_t>(
                        0, ctx.server->max_connections - ctx.server->current_connections.load())));
  BSON_APPEND_INT32(&connections, "totalCreated", static_cast<int32_t>(ctx.server->total_connections.load()));
  // Connections running a request now (this serverStatus among them).
  BSON_APPEND_INT32(&connections, "active", static_cast<int32_t>(ActiveRequests()));
  bson_append_document_end(doc, &connections);
  bson_append_document_begin(doc, "storageEngine", -1, &storage_engine);
  BSON_APPEND_UTF8(&storage_engine, "name", "wiredTiger");
  BSON_APPEND_BOOL(&storage_engine, "supportsCommittedReads", true);
  BSON_APPEND_BOOL(&storage_engine, "persistent", !ctx.engine->storage().options().in_memory);
  bson_append_document_end(doc, &storage_engine);
  bson_append_document_begin(doc, "metrics", -1, &metrics);
  AppendCursorMetrics(&metrics, ctx.engine->cursors().Stats());
  AppendDocumentMetrics(&metrics);
  bson_append_document_end(doc, &metrics);
  AppendWiredTigerMetrics(ctx.engine->storage(), doc);
  AppendServerMetrics(doc);
  AppendLongWorkStatus(ctx.engine->operations().long_work().stats(), doc);
  return out;
}

StatusWith<bson::BsonDoc> RunWhatsMyUri(CommandContext& ctx) {
  bson::BsonDoc out;
  BSON_APPEND_UTF8(out.mutable_get(), "you", ctx.connection.remote_address.c_str());
  return out;
}

StatusWith<bson::BsonDoc> RunConnectionStatus(CommandContext& ctx) {
  bson::BsonDoc out;
  AppendAuthInfo(ctx, out.mutable_get());
  return out;
}

}  // namespace tigerdoc::wire
