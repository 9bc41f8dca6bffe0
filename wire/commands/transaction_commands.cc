// Transactions on a standalone server: refused, as mongod refuses them.
//
// tigerdoc has no multi-document transactions yet. Drivers and mongosh send
// `txnNumber`, `autocommit: false` and `startTransaction: true` on the
// commands of a transaction; running those commands as ordinary writes
// would apply them at once, visible to everyone, and abortTransaction could
// not undo them. So every command that carries one of these fields is
// refused before it runs, with the answer a standalone mongod gives.

#include <string>
#include <string_view>

#include "engine/bson/raw_fields.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

constexpr char kTransactionsNeedReplicaSet[] =
    "Transaction numbers are only allowed on a replica set member or mongos";

// The fields of OperationSessionInfo that only a replica set member accepts.
constexpr const char* kTransactionFields[] = {"txnNumber", "autocommit", "startTransaction"};

}  // namespace

Status RefuseTransactionFields(const bson_t* body) {
  // One pass over the command's keys: every command of a standalone comes
  // here, and a lookup per field scanned the command three times.
  auto refuse = [](std::string_view key) {
    for (const char* field : kTransactionFields) {
      if (key == field) return true;
    }
    return false;
  };
  bson::RawFields fields(body);
  while (fields.Next()) {
    if (refuse(fields.key())) return Status(ErrorCode::kIllegalOperation, kTransactionsNeedReplicaSet);
  }
  if (!fields.broken()) return Status::OK();
  bson_iter_t it;  // an element left to libbson: its iteration decides
  if (!bson_iter_init(&it, body)) return Status::OK();
  while (bson_iter_next(&it)) {
    if (refuse(std::string_view(bson_iter_key(&it), bson_iter_key_len(&it)))) {
      return Status(ErrorCode::kIllegalOperation, kTransactionsNeedReplicaSet);
    }
  }
  return Status::OK();
}

StatusWith<bson::BsonDoc> RunCommitTransaction(CommandContext&) {
  return Status(ErrorCode::kIllegalOperation, kTransactionsNeedReplicaSet);
}

StatusWith<bson::BsonDoc> RunAbortTransaction(CommandContext&) {
  return Status(ErrorCode::kIllegalOperation, kTransactionsNeedReplicaSet);
}

}  // namespace tigerdoc::wire
