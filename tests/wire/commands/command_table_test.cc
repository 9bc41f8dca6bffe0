// The command table's traits (command.h) are MongoDB 7's, and every part of
// the server that used to keep its own list of names agrees with them
// because it now reads them: the sets below are what mongod declares per
// command class (getReadWriteType, getLogicalOp, supportsRetryableWrite /
// retryableWriteCommands, allowedInTransactions / txnCmdAllowlist,
// redactForLogging) and what the compression spec says stays uncompressed.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "wire/commands/command_redaction.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

std::set<std::string> NamesWhere(bool (*pred)(const CommandTraits&)) {
  std::set<std::string> out;
  for (const CommandSpec& spec : AllCommands()) {
    if (pred(spec.traits)) out.emplace(spec.name);
  }
  return out;
}

bool SameTraits(const CommandTraits& a, const CommandTraits& b) {
  const std::string_view secret_a = a.secret ? a.secret : "", secret_b = b.secret ? b.secret : "";
  return a.kind == b.kind && a.op == b.op && a.lock == b.lock && a.retryable == b.retryable &&
         a.in_transaction == b.in_transaction && a.ddl == b.ddl && a.compress_reply == b.compress_reply &&
         secret_a == secret_b;
}

// Before the table had these columns, top, opLatencies and the transaction
// code each listed findAndModify and missed (or listed) findandmodify.
TEST(CommandTableTest, AliasesShareTheirCommandsTraits) {
  const std::vector<std::vector<std::string_view>> aliases = {
      {"findAndModify", "findandmodify"}, {"hello", "isMaster", "ismaster"},
      {"buildInfo", "buildinfo"}, {"dbStats", "dbstats"}};
  for (const auto& names : aliases) {
    const CommandSpec* first = FindCommand(names[0]);
    ASSERT_NE(first, nullptr) << names[0];
    for (std::string_view name : names) {
      const CommandSpec* spec = FindCommand(name);
      ASSERT_NE(spec, nullptr) << name;
      EXPECT_TRUE(SameTraits(first->traits, spec->traits)) << name;
      EXPECT_EQ(first->run, spec->run) << name;
    }
  }
}

TEST(CommandTableTest, RetryableWritesAreMongoDbsRetryableWriteCommands) {
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return t.retryable; }),
            (std::set<std::string>{"delete", "findAndModify", "findandmodify", "insert", "update"}));
}

// MongoDB 7's txnCmdAllowlist, less the commands tigerdoc does not have
// (bulkWrite, prepareTransaction, coordinateCommitTransaction, cluster*).
TEST(CommandTableTest, CommandsAllowedInTransactionsAreMongoDbsAllowlist) {
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return t.in_transaction; }),
            (std::set<std::string>{"abortTransaction", "aggregate", "commitTransaction", "create",
                                   "createIndexes", "delete", "distinct", "find", "findAndModify",
                                   "findandmodify", "getMore", "insert", "killCursors", "update"}));
}

TEST(CommandTableTest, KindsAreMongoDbsReadWriteTypes) {
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return t.kind == CommandKind::kRead; }),
            (std::set<std::string>{"aggregate", "count", "distinct", "find", "getMore"}));
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return t.kind == CommandKind::kWrite; }),
            (std::set<std::string>{"delete", "findAndModify", "findandmodify", "insert", "update"}));
}

TEST(CommandTableTest, LogicalOpsNameCurrentOpsOp) {
  EXPECT_STREQ(LogicalOpName(FindCommand("find")->traits.op), "query");
  EXPECT_STREQ(LogicalOpName(FindCommand("getMore")->traits.op), "getmore");
  EXPECT_STREQ(LogicalOpName(FindCommand("insert")->traits.op), "insert");
  EXPECT_STREQ(LogicalOpName(FindCommand("update")->traits.op), "update");
  EXPECT_STREQ(LogicalOpName(FindCommand("delete")->traits.op), "remove");
  for (std::string_view name : {"findAndModify", "aggregate", "count", "createIndexes", "ping"}) {
    EXPECT_STREQ(LogicalOpName(FindCommand(name)->traits.op), "command") << name;
  }
}

// Top records the collection of commands that lock one: reads in readLock,
// writes in writeLock, DDL and validate in neither.
TEST(CommandTableTest, TopRecordsTheCommandsThatLockTheirCollection) {
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return t.lock == CollectionLock::kRead; }),
            (std::set<std::string>{"aggregate", "collStats", "count", "distinct", "find", "getMore",
                                   "listIndexes"}));
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return t.lock == CollectionLock::kWrite; }),
            (std::set<std::string>{"delete", "findAndModify", "findandmodify", "insert", "update"}));
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return t.lock == CollectionLock::kOther; }),
            (std::set<std::string>{"collMod", "create", "createIndexes", "drop", "dropIndexes",
                                   "validate"}));
}

// The commands that wait for open transactions on the collections they
// drop, replace or index (transaction_ddl.h); aggregate only with $out.
TEST(CommandTableTest, DdlCommandsAreTheOnesThatReplaceOrIndexCollections) {
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return t.ddl; }),
            (std::set<std::string>{"aggregate", "createIndexes", "drop", "dropDatabase",
                                   "dropIndexes", "renameCollection"}));
}

// FindCommand looks through the rows of the name's first byte only.
TEST(CommandTableTest, EveryRowIsFoundByItsNameAndNothingElse) {
  for (const CommandSpec& spec : AllCommands()) {
    EXPECT_EQ(FindCommand(spec.name), &spec) << spec.name;
    const std::string name(spec.name);
    EXPECT_EQ(FindCommand(name.substr(0, name.size() - 1)), nullptr) << name;
    EXPECT_EQ(FindCommand(name + "x"), nullptr) << name;
    EXPECT_EQ(FindCommand(std::string_view(name.c_str(), name.size() + 1)), nullptr) << name;
  }
  for (std::string_view miss : {"", "a", "zzz", "Find", "FIND", "\xff", "$cmd"}) {
    EXPECT_EQ(FindCommand(miss), nullptr) << miss;
  }
}

// The compression spec: replies to the handshake and authentication
// commands are never compressed.
TEST(CommandTableTest, HandshakeAndAuthRepliesStayUncompressed) {
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return !t.compress_reply; }),
            (std::set<std::string>{"createUser", "getnonce", "hello", "isMaster", "ismaster",
                                   "saslContinue", "saslStart", "updateUser"}));
}

TEST(CommandTableTest, SecretsAreRedactedByTheirCommandsRow) {
  EXPECT_EQ(NamesWhere([](const CommandTraits& t) { return t.secret != nullptr; }),
            (std::set<std::string>{"createUser", "hello", "isMaster", "ismaster", "saslContinue",
                                   "saslStart", "updateUser"}));
  bson::BsonDoc body;
  BSON_APPEND_UTF8(body.mutable_get(), "createUser", "u");
  BSON_APPEND_UTF8(body.mutable_get(), "pwd", "S3cret!");
  BSON_APPEND_UTF8(body.mutable_get(), "$db", "admin");
  std::optional<bson::BsonDoc> shown = RedactSecrets("createUser", body.get());
  ASSERT_TRUE(shown.has_value());
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, shown->get(), "pwd"));
  EXPECT_STREQ(bson_iter_utf8(&it, nullptr), "xxx");
  ASSERT_TRUE(bson_iter_init_find(&it, shown->get(), "createUser"));
  EXPECT_STREQ(bson_iter_utf8(&it, nullptr), "u");
  // A command without a secret field, or without the field, is shown as sent.
  EXPECT_FALSE(RedactSecrets("insert", body.get()).has_value());
  EXPECT_FALSE(RedactSecrets("noSuchCommand", body.get()).has_value());
}

}  // namespace
}  // namespace tigerdoc::wire
