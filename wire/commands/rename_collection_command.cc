// renameCollection (admin database): {renameCollection: "<db>.<from>", to:
// "<db2>.<to>", dropTarget: <bool>}. Renames across databases too (the
// collection's tables are named by its ident, so only the catalog row
// moves). The catalog writes the row, the `rename` change event (and a
// `drop` of a replaced target) in one transaction (Catalog::RenameCollection),
// so collection change streams see rename then invalidate.
//
// MongoDB 7's checks, in its order: 73 for an invalid namespace, 20 for a
// rename onto itself, 166 for a view, 26 for a missing source, 48 for an
// existing target without dropTarget.

#include <string>

#include "engine/catalog/catalog.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

struct SplitNs {
  std::string db;
  std::string coll;
};

// "<db>.<coll>" with a non-empty database and a valid collection name.
StatusWith<SplitNs> SplitFullNamespace(const std::string& ns, const char* which) {
  const size_t dot = ns.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == ns.size() ||
      !CheckCollectionNamespace(ns.substr(0, dot), ns.substr(dot + 1)).ok()) {
    return Status(ErrorCode::kInvalidNamespace, std::string("Invalid ") + which + " namespace: " + ns);
  }
  return SplitNs{ns.substr(0, dot), ns.substr(dot + 1)};
}

}  // namespace

StatusWith<bson::BsonDoc> RunRenameCollection(CommandContext& ctx) {
  bson_iter_t it;
  if (!bson_iter_init(&it, ctx.body()) || !bson_iter_next(&it) || !BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kTypeMismatch,
                  "BSON field 'renameCollection.renameCollection' is the wrong type, expected type 'string'");
  }
  const std::string from_ns = bson_iter_utf8(&it, nullptr);
  RETURN_IF_ERROR(CheckFields(ctx.body(), ctx.name, {"to", "dropTarget", "stayTemp", "collectionUUID"}));
  ASSIGN_OR_RETURN(std::optional<std::string> to_ns, GetString(ctx.body(), ctx.name, "to"));
  if (!to_ns) {
    return Status(ErrorCode::kLocation40414, "BSON field 'renameCollection.to' is missing but a required field");
  }
  ASSIGN_OR_RETURN(std::optional<bool> drop_target, GetBool(ctx.body(), ctx.name, "dropTarget"));
  ASSIGN_OR_RETURN(SplitNs from, SplitFullNamespace(from_ns, "source"));
  ASSIGN_OR_RETURN(SplitNs to, SplitFullNamespace(*to_ns, "target"));
  if (from_ns == *to_ns) return Status(ErrorCode::kIllegalOperation, "Can't rename a collection to itself");

  catalog::Catalog& catalog = ctx.engine->catalog();
  if (catalog.LookupView(from_ns) != nullptr) {
    return Status(ErrorCode::kCommandNotSupportedOnView, "cannot rename view: " + from_ns);
  }
  if (catalog.Lookup(from_ns) == nullptr) {
    return Status(ErrorCode::kNamespaceNotFound, "Source collection " + from_ns + " does not exist");
  }
  if (catalog.LookupView(*to_ns) != nullptr) {
    return Status(ErrorCode::kNamespaceExists, "a view already exists with that name: " + *to_ns);
  }
  if (catalog.Lookup(*to_ns) != nullptr && !drop_target.value_or(false)) {
    return Status(ErrorCode::kNamespaceExists, "target namespace exists");
  }
  Status renamed = catalog.RenameCollection(from_ns, to.db, to.coll, drop_target.value_or(false));
  // The checks above raced with another DDL: answer as MongoDB would have.
  if (renamed.code() == ErrorCode::kNamespaceNotFound) {
    return Status(ErrorCode::kNamespaceNotFound, "Source collection " + from_ns + " does not exist");
  }
  RETURN_IF_ERROR(renamed);
  return bson::BsonDoc();
}

}  // namespace tigerdoc::wire
