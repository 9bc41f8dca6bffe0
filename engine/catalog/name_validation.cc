// Database and collection name rules, with MongoDB's messages (InvalidNamespace,
// 73). The order of checks follows mongod's: the database name first (its
// DatabaseName constructor), then the namespace as a whole, then the
// collection name, then system collections, then the total length.

#include <array>
#include <string>
#include <string_view>

#include "engine/catalog/catalog.h"

namespace tigerdoc::catalog {

namespace {

constexpr size_t kMaxDbNameLength = 63;
constexpr size_t kMaxNamespaceLength = 255;

Status Invalid(std::string message) {
  return Status(ErrorCode::kInvalidNamespace, std::move(message));
}

bool Contains(std::string_view s, char c) { return s.find(c) != std::string_view::npos; }

// Checks made while the database name is parsed, before the namespace is
// looked at as a whole.
Status CheckDbNameShape(std::string_view db) {
  if (Contains(db, '.')) {
    return Invalid("'.' is an invalid character in a db name: " + std::string(db));
  }
  if (Contains(db, '\0')) return Invalid("database names cannot have embedded null characters");
  if (db.size() > kMaxDbNameLength) {
    return Invalid("db name must be at most " + std::to_string(kMaxDbNameLength) +
                   " characters, found: " + std::to_string(db.size()));
  }
  return Status::OK();
}

bool HasBadDbChar(std::string_view db) {
  return db.find_first_of("/\\ \"") != std::string_view::npos;
}

// System collections a client may create (mongod's isLegalClientSystemNS,
// plus system.profile).
bool IsAllowedSystemCollection(std::string_view db, std::string_view name) {
  constexpr std::array<std::string_view, 4> kAnyDb = {"system.users", "system.js",
                                                      "system.views", "system.profile"};
  for (std::string_view allowed : kAnyDb) {
    if (name == allowed) return true;
  }
  constexpr std::string_view kBuckets = "system.buckets.";
  if (name.substr(0, kBuckets.size()) == kBuckets && name.size() > kBuckets.size()) return true;
  if (db == "admin") {
    return name == "system.roles" || name == "system.version" || name == "system.keys" ||
           name == "system.backup_users" || name == "system.new_users";
  }
  if (db == "config") return name == "system.sessions";
  if (db == "local") return name == "system.replset";
  return false;
}

}  // namespace

Status Catalog::ValidateDbName(std::string_view db) {
  RETURN_IF_ERROR(CheckDbNameShape(db));
  if (db.empty() || HasBadDbChar(db) || Contains(db, '$')) {
    return Invalid("Invalid database name: '" + std::string(db) + "'");
  }
  return Status::OK();
}

Status Catalog::ValidateCollectionName(std::string_view name) {
  if (name.empty()) return Invalid("Invalid collection name: " + std::string(name));
  if (Contains(name, '\0')) return Invalid("namespaces cannot have embedded null characters");
  if (name.front() == '.') {
    return Invalid("Collection names cannot start with '.': " + std::string(name));
  }
  if (Contains(name, '$')) return Invalid("Invalid collection name: " + std::string(name));
  return Status::OK();
}

Status Catalog::ValidateNamespace(std::string_view db, std::string_view name) {
  RETURN_IF_ERROR(CheckDbNameShape(db));
  std::string ns = std::string(db) + "." + std::string(name);
  if (db.empty()) return Invalid("Invalid database name: ''");
  if (HasBadDbChar(db)) return Invalid("Invalid namespace specified '" + ns + "'");
  if (Contains(db, '$')) return Invalid("Invalid namespace: " + ns);
  if (name.empty()) return Invalid("Invalid namespace specified: " + std::string(db));
  RETURN_IF_ERROR(ValidateCollectionName(name));
  constexpr std::string_view kSystem = "system.";
  if (name.substr(0, kSystem.size()) == kSystem && !IsAllowedSystemCollection(db, name)) {
    return Invalid("Invalid system namespace: " + ns);
  }
  if (ns.size() > kMaxNamespaceLength) {
    return Invalid("Fully qualified namespace is too long. Namespace: " + ns +
                   " Max: " + std::to_string(kMaxNamespaceLength));
  }
  return Status::OK();
}

}  // namespace tigerdoc::catalog
