// The one-member replica set of --replSet NAME: hello's replica-set fields,
// the cluster time every reply carries, replSetGetStatus, replSetGetConfig
// and replSetInitiate.
//
// Why pretend to be a replica set: drivers and mongosh enable sessions,
// retryable writes, transactions and change streams only against a
// replica-set member (or mongos). A single node that is its own primary and
// majority is a correct replica set of one: every write is majority
// committed when it is journaled.

#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "engine/base/wall_clock.h"
#include "engine/query/interrupt.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

using engine::repl::Timestamp;

// The term and election of a node that has always been primary.
constexpr int64_t kTerm = 1;
constexpr int32_t kSetVersion = 1;
constexpr char kElectionId[] = "7fffffff0000000000000001";
constexpr char kNotReplicaSet[] = "not running with --replSet";
// The longest hello waits when a driver streams it (awaitable hello).
constexpr int64_t kMaxAwaitMillis = 60 * 1000;

// The topologyVersion's processId: new at every start, as mongod's.
const bson_oid_t& ProcessId() {
  static const bson_oid_t oid = [] {
    bson_oid_t o;
    bson_oid_init(&o, nullptr);
    return o;
  }();
  return oid;
}

// "host:port" of the one member: the first --bind_ip address, or the host
// name when that is a wildcard (other machines could not dial 0.0.0.0).
std::string MemberHost(const ServerInfo& server) {
  std::string ip = server.bind_ip.substr(0, server.bind_ip.find(','));
  if (ip == "0.0.0.0" || ip == "::" || ip.empty()) {
    char buf[256] = {0};
    gethostname(buf, sizeof buf - 1);
    ip = buf;
  }
  return ip + ":" + std::to_string(server.port);
}

void AppendTimestamp(bson_t* doc, const char* key, Timestamp ts) {
  BSON_APPEND_TIMESTAMP(doc, key, ts.seconds, ts.increment);
}

void AppendOpTime(bson_t* doc, const char* key, Timestamp ts) {
  bson_t optime;
  BSON_APPEND_DOCUMENT_BEGIN(doc, key, &optime);
  AppendTimestamp(&optime, "ts", ts);
  BSON_APPEND_INT64(&optime, "t", kTerm);
  bson_append_document_end(doc, &optime);
}

int64_t MillisOf(Timestamp ts) { return static_cast<int64_t>(ts.seconds) * 1000; }

// Awaitable hello (MongoDB's streaming monitoring): a driver that sends
// back our topologyVersion with maxAwaitTimeMS waits for a change; the
// topology of one node never changes, so answer when the time is up (or at
// shutdown).
Status AwaitTopologyChange(CommandContext& ctx) {
  bson_iter_t tv, pid;
  if (!bson_iter_init_find(&tv, ctx.body(), "topologyVersion") || !BSON_ITER_HOLDS_DOCUMENT(&tv)) {
    return Status::OK();
  }
  ASSIGN_OR_RETURN(std::optional<int64_t> await_ms, GetInt64(ctx.body(), ctx.name, "maxAwaitTimeMS"));
  if (!await_ms) return Status::OK();
  if (*await_ms < 0) return Status(ErrorCode::kBadValue, "maxAwaitTimeMS must be a non-negative integer");
  if (!bson_iter_recurse(&tv, &pid) || !bson_iter_find(&pid, "processId") ||
      !BSON_ITER_HOLDS_OID(&pid) || !bson_oid_equal(bson_iter_oid(&pid), &ProcessId())) {
    return Status::OK();  // another process's topology: answer now
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(std::min(*await_ms, kMaxAwaitMillis));
  while (std::chrono::steady_clock::now() < deadline) {
    RETURN_IF_ERROR(query::CheckShutdown());
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(100), deadline - std::chrono::steady_clock::now()));
  }
  return Status::OK();
}

}  // namespace

Status AppendReplicaSetHello(CommandContext& ctx, bson_t* doc) {
  RETURN_IF_ERROR(AwaitTopologyChange(ctx));
  const std::string host = MemberHost(*ctx.server);
  const Timestamp now = ctx.engine->clock().Now();
  bson_t hosts, topology, last_write;
  BSON_APPEND_ARRAY_BEGIN(doc, "hosts", &hosts);
  BSON_APPEND_UTF8(&hosts, "0", host.c_str());
  bson_append_array_end(doc, &hosts);
  BSON_APPEND_UTF8(doc, "setName", ctx.server->repl_set_name.c_str());
  BSON_APPEND_INT32(doc, "setVersion", kSetVersion);
  if (ctx.name != "hello") BSON_APPEND_BOOL(doc, "isWritablePrimary", true);
  BSON_APPEND_BOOL(doc, "secondary", false);
  BSON_APPEND_UTF8(doc, "primary", host.c_str());
  BSON_APPEND_UTF8(doc, "me", host.c_str());
  bson_oid_t election;
  bson_oid_init_from_string(&election, kElectionId);
  BSON_APPEND_OID(doc, "electionId", &election);
  BSON_APPEND_DOCUMENT_BEGIN(doc, "topologyVersion", &topology);
  BSON_APPEND_OID(&topology, "processId", &ProcessId());
  BSON_APPEND_INT64(&topology, "counter", 0);
  bson_append_document_end(doc, &topology);
  BSON_APPEND_DOCUMENT_BEGIN(doc, "lastWrite", &last_write);
  AppendOpTime(&last_write, "opTime", now);
  BSON_APPEND_DATE_TIME(&last_write, "lastWriteDate", MillisOf(now));
  AppendOpTime(&last_write, "majorityOpTime", now);
  BSON_APPEND_DATE_TIME(&last_write, "majorityWriteDate", MillisOf(now));
  bson_append_document_end(doc, &last_write);
  return Status::OK();
}

void AppendClusterTime(CommandContext& ctx, bson_t* reply) {
  engine::repl::LogicalClock& clock = ctx.engine->clock();
  // A command that wrote answers with its writes' time, so that
  // startAtOperationTime: operationTime sees them (inclusive, as MongoDB);
  // any other with the latest time, which covers every write it could read.
  const Timestamp written = engine::repl::LogicalClock::ThreadTick();
  const Timestamp cluster_time = clock.Now();
  const Timestamp operation_time = written == Timestamp{} ? cluster_time : written;
  bson_t cluster, signature;
  BSON_APPEND_DOCUMENT_BEGIN(reply, "$clusterTime", &cluster);
  AppendTimestamp(&cluster, "clusterTime", cluster_time);
  BSON_APPEND_DOCUMENT_BEGIN(&cluster, "signature", &signature);
  // Unsigned: no keys without authentication, as MongoDB's zero hash.
  static const uint8_t kZeroHash[20] = {0};
  BSON_APPEND_BINARY(&signature, "hash", BSON_SUBTYPE_BINARY, kZeroHash, sizeof kZeroHash);
  BSON_APPEND_INT64(&signature, "keyId", 0);
  bson_append_document_end(&cluster, &signature);
  bson_append_document_end(reply, &cluster);
  AppendTimestamp(reply, "operationTime", operation_time);
}

StatusWith<bson::BsonDoc> RunReplSetGetStatus(CommandContext& ctx) {
  if (ctx.server->repl_set_name.empty()) return Status(ErrorCode::kNoReplicationEnabled, kNotReplicaSet);
  const std::string host = MemberHost(*ctx.server);
  const Timestamp now = ctx.engine->clock().Now();
  const int64_t now_ms = WallClockMillis();
  const int64_t start_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               ctx.server->start_time.time_since_epoch())
                               .count();
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "set", ctx.server->repl_set_name.c_str());
  BSON_APPEND_DATE_TIME(doc, "date", now_ms);
  BSON_APPEND_INT32(doc, "myState", 1);
  BSON_APPEND_INT64(doc, "term", kTerm);
  BSON_APPEND_UTF8(doc, "syncSourceHost", "");
  BSON_APPEND_INT32(doc, "syncSourceId", -1);
  BSON_APPEND_INT32(doc, "heartbeatIntervalMillis", 2000);
  BSON_APPEND_INT32(doc, "majorityVoteCount", 1);
  BSON_APPEND_INT32(doc, "writeMajorityCount", 1);
  BSON_APPEND_INT32(doc, "votingMembersCount", 1);
  BSON_APPEND_INT32(doc, "writableVotingMembersCount", 1);
  bson_t optimes, members, member;
  BSON_APPEND_DOCUMENT_BEGIN(doc, "optimes", &optimes);
  AppendOpTime(&optimes, "lastCommittedOpTime", now);
  BSON_APPEND_DATE_TIME(&optimes, "lastCommittedWallTime", MillisOf(now));
  AppendOpTime(&optimes, "appliedOpTime", now);
  AppendOpTime(&optimes, "durableOpTime", now);
  BSON_APPEND_DATE_TIME(&optimes, "lastAppliedWallTime", MillisOf(now));
  BSON_APPEND_DATE_TIME(&optimes, "lastDurableWallTime", MillisOf(now));
  bson_append_document_end(doc, &optimes);
  BSON_APPEND_ARRAY_BEGIN(doc, "members", &members);
  BSON_APPEND_DOCUMENT_BEGIN(&members, "0", &member);
  BSON_APPEND_INT32(&member, "_id", 0);
  BSON_APPEND_UTF8(&member, "name", host.c_str());
  BSON_APPEND_DOUBLE(&member, "health", 1);
  BSON_APPEND_INT32(&member, "state", 1);
  BSON_APPEND_UTF8(&member, "stateStr", "PRIMARY");
  BSON_APPEND_INT64(&member, "uptime", (now_ms - start_ms) / 1000);
  AppendOpTime(&member, "optime", now);
  BSON_APPEND_DATE_TIME(&member, "optimeDate", MillisOf(now));
  BSON_APPEND_DATE_TIME(&member, "lastAppliedWallTime", MillisOf(now));
  BSON_APPEND_DATE_TIME(&member, "lastDurableWallTime", MillisOf(now));
  BSON_APPEND_UTF8(&member, "syncSourceHost", "");
  BSON_APPEND_INT32(&member, "syncSourceId", -1);
  BSON_APPEND_UTF8(&member, "infoMessage", "");
  BSON_APPEND_TIMESTAMP(&member, "electionTime", static_cast<uint32_t>(start_ms / 1000), 1);
  BSON_APPEND_DATE_TIME(&member, "electionDate", start_ms / 1000 * 1000);
  BSON_APPEND_INT32(&member, "configVersion", kSetVersion);
  BSON_APPEND_INT64(&member, "configTerm", kTerm);
  BSON_APPEND_BOOL(&member, "self", true);
  BSON_APPEND_UTF8(&member, "lastHeartbeatMessage", "");
  bson_append_document_end(&members, &member);
  bson_append_array_end(doc, &members);
  return out;
}

StatusWith<bson::BsonDoc> RunReplSetGetConfig(CommandContext& ctx) {
  if (ctx.server->repl_set_name.empty()) return Status(ErrorCode::kNoReplicationEnabled, kNotReplicaSet);
  const std::string host = MemberHost(*ctx.server);
  bson::BsonDoc out;
  bson_t config, members, member, tags, settings, modes, defaults;
  BSON_APPEND_DOCUMENT_BEGIN(out.mutable_get(), "config", &config);
  BSON_APPEND_UTF8(&config, "_id", ctx.server->repl_set_name.c_str());
  BSON_APPEND_INT32(&config, "version", kSetVersion);
  BSON_APPEND_INT64(&config, "term", kTerm);
  BSON_APPEND_ARRAY_BEGIN(&config, "members", &members);
  BSON_APPEND_DOCUMENT_BEGIN(&members, "0", &member);
  BSON_APPEND_INT32(&member, "_id", 0);
  BSON_APPEND_UTF8(&member, "host", host.c_str());
  BSON_APPEND_BOOL(&member, "arbiterOnly", false);
  BSON_APPEND_BOOL(&member, "buildIndexes", true);
  BSON_APPEND_BOOL(&member, "hidden", false);
  BSON_APPEND_DOUBLE(&member, "priority", 1);
  BSON_APPEND_DOCUMENT_BEGIN(&member, "tags", &tags);
  bson_append_document_end(&member, &tags);
  BSON_APPEND_INT64(&member, "secondaryDelaySecs", 0);
  BSON_APPEND_INT32(&member, "votes", 1);
  bson_append_document_end(&members, &member);
  bson_append_array_end(&config, &members);
  BSON_APPEND_INT64(&config, "protocolVersion", 1);
  BSON_APPEND_BOOL(&config, "writeConcernMajorityJournalDefault", true);
  BSON_APPEND_DOCUMENT_BEGIN(&config, "settings", &settings);
  BSON_APPEND_BOOL(&settings, "chainingAllowed", true);
  BSON_APPEND_INT32(&settings, "heartbeatIntervalMillis", 2000);
  BSON_APPEND_INT32(&settings, "heartbeatTimeoutSecs", 10);
  BSON_APPEND_INT32(&settings, "electionTimeoutMillis", 10000);
  BSON_APPEND_INT32(&settings, "catchUpTimeoutMillis", -1);
  BSON_APPEND_DOCUMENT_BEGIN(&settings, "getLastErrorModes", &modes);
  bson_append_document_end(&settings, &modes);
  BSON_APPEND_DOCUMENT_BEGIN(&settings, "getLastErrorDefaults", &defaults);
  BSON_APPEND_INT32(&defaults, "w", 1);
  BSON_APPEND_INT32(&defaults, "wtimeout", 0);
  bson_append_document_end(&settings, &defaults);
  BSON_APPEND_OID(&settings, "replicaSetId", &ProcessId());
  bson_append_document_end(&config, &settings);
  bson_append_document_end(out.mutable_get(), &config);
  return out;
}

// rs.initiate(): the one-member set is initiated at start.
StatusWith<bson::BsonDoc> RunReplSetInitiate(CommandContext& ctx) {
  if (ctx.server->repl_set_name.empty()) {
    return Status(ErrorCode::kNoReplicationEnabled,
                  "This node was not started with replication enabled.");
  }
  return Status(ErrorCode::kAlreadyInitialized, "already initialized");
}

}  // namespace tigerdoc::wire
