#pragma once
// CommandRegistry: THE table of commands (command_registry.cc, sorted by
// name), looked up by the name that is the first field of a command body.
//
// Thread-safety: immutable after construction.

#include <span>
#include <string_view>

#include "wire/commands/command.h"

namespace tigerdoc::wire {

// The collStats command's fields of one collection.
// Index sizes are approximate (a scan of the index tables).
// The storageStats of one shard of a collection: $collStats answers one
// document per shard, as a sharded cluster does (mongosh's db.c.stats()
// sums them and shows each under `shards`, pattern stats included).
bson::BsonDoc CollStatsShardDocument(engine::Engine& engine, const catalog::CollectionEntry& entry,
                                     int shard);
bson::BsonDoc CollStatsDocument(engine::Engine& engine, const catalog::CollectionEntry& entry,
                                int64_t scale);

// The currentOp documents of the running operations that match `filter`
// (null or empty: all), for currentOp and the $currentOp stage
// (operation_commands.cc).
StatusWith<std::vector<bson::BsonDoc>> CurrentOpDocuments(CommandContext& ctx, const bson_t* filter);

// nullptr when no command has that name.
const CommandSpec* FindCommand(std::string_view name);
// Every row of the table, sorted by name.
std::span<const CommandSpec> AllCommands();
// The actions the table declares for `name` (what explain of it needs); 0
// when there is no such command.
auth::ActionSet DeclaredActions(std::string_view name);

// Refuses a command that carries txnNumber, autocommit or startTransaction:
// 20 IllegalOperation, as a standalone mongod (transaction_commands.cc).
Status RefuseTransactionFields(const bson_t* body);

// Runs `spec` and turns its result, or an exception, into the reply
// document (dispatcher.cc).
bson::BsonDoc RunCommandReply(const CommandSpec& spec, CommandContext& ctx);
// With --replSet: runs a command in its client session: a retryable write
// (txnNumber) answered once, or a statement of a multi-statement
// transaction (autocommit: false), commitTransaction and abortTransaction
// (transaction_runner.cc). Commands without txnNumber run as they are.
bson::BsonDoc RunInSession(const CommandSpec& spec, CommandContext& ctx);
// With --replSet: hello's replica-set fields (replica_set_commands.cc).
Status AppendReplicaSetHello(CommandContext& ctx, bson_t* doc);
// With --replSet: the `$clusterTime` and `operationTime` every reply
// carries; a write command ticks the cluster time (replica_set_commands.cc).
void AppendClusterTime(CommandContext& ctx, bson_t* reply);

// The handlers, one family per file (handshake_commands.cc, ...).
StatusWith<bson::BsonDoc> RunAbortTransaction(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunAggregate(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunArchive(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunBuildInfo(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunCollMod(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunCollStats(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunCommitTransaction(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunConnectionStatus(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunCount(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunConvertToCapped(CommandContext& ctx);  // capped_commands.cc
StatusWith<bson::BsonDoc> RunCreate(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunCreateIndexes(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunCurrentOp(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunDbStats(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunDelete(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunDistinct(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunDrop(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunDropDatabase(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunDropIndexes(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunEndSessions(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunExplain(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunFind(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunFindAndModify(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunGetCmdLineOpts(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunGetLog(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunGetMore(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunGetNonce(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunGetParameter(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunHello(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunHostInfo(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunInsert(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunKillCursors(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunKillAllSessions(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunKillOp(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunKillSessions(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunListCollections(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunListDatabases(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunListIndexes(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunLogRotate(CommandContext& ctx);
// A command a pattern answers (Engine::RunPatternCommand): resyncSubset.
StatusWith<bson::BsonDoc> RunPatternCommand(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunPing(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunRefreshSessions(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunRenameCollection(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunReplSetGetConfig(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunReplSetGetStatus(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunReplSetInitiate(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunServerStatus(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunTop(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunSetParameter(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunStartSession(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunUpdate(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunValidate(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunWhatsMyUri(CommandContext& ctx);

// Users and authentication (user_commands.cc, auth_commands.cc).
StatusWith<bson::BsonDoc> RunCreateUser(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunDropAllUsersFromDatabase(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunDropUser(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunGrantRolesToUser(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunLogout(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunRevokeRolesFromUser(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunSaslContinue(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunSaslStart(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunUpdateUser(CommandContext& ctx);
StatusWith<bson::BsonDoc> RunUsersInfo(CommandContext& ctx);
// hello's security fields (auth_commands.cc): saslSupportedMechs for
// {saslSupportedMechs: "<db>.<user>"}, speculativeAuthenticate's first step,
// and the negotiated `compression`.
Status AppendHelloSecurityFields(CommandContext& ctx, bson_t* reply);
// connectionStatus's authInfo of the connection (auth_commands.cc).
void AppendAuthInfo(CommandContext& ctx, bson_t* reply);

}  // namespace tigerdoc::wire
