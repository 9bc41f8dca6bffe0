#pragma once
// Typed access to command arguments with MongoDB's IDL-style errors:
//   unknown field:  40415 "BSON field 'find.foo' is an unknown field."
//   wrong type:     14 TypeMismatch "BSON field 'find.filter' is the wrong
//                   type 'int', expected type 'object'"
//   negative value: 51024 "BSON field 'limit' value must be >= 0, actual value '-1'"
// Generic arguments every command accepts (lsid, $db, $clusterTime,
// $readPreference, apiVersion, writeConcern, comment, maxTimeMS, ...) are
// skipped by CheckFields.
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "wire/commands/present_fields.h"

namespace tigerdoc::wire {

// MongoDB's name of a BSON type ("double", "string", "object", ...).
std::string_view BsonTypeName(bson_type_t type);

// True for the arguments MongoDB accepts on every command.
bool IsGenericArgument(std::string_view field);

// Fails on the first field of `body` (after the command name) that is
// neither in `known` nor generic.
Status CheckFields(const bson_t* body, std::string_view command,
                   std::initializer_list<std::string_view> known);

// Each getter: nullopt when the field is absent; TypeMismatch when present
// with the wrong type. `command` prefixes the field in messages.
StatusWith<std::optional<bson::BsonDoc>> GetObject(const bson_t* body, std::string_view command,
                                                    const char* field);
StatusWith<std::optional<bson::BsonDoc>> GetArray(const bson_t* body, std::string_view command,
                                                   const char* field);  // as a document
// Any numeric type, converted exactly to int64 (doubles truncated toward 0).
StatusWith<std::optional<int64_t>> GetInt64(const bson_t* body, std::string_view command,
                                            const char* field);
// Like GetInt64 but refuses negative values (51024).
StatusWith<std::optional<int64_t>> GetNonNegative(const bson_t* body, std::string_view command,
                                                  const char* field);
// bool, or a number (non-zero = true), as MongoDB's "safeBool".
StatusWith<std::optional<bool>> GetBool(const bson_t* body, std::string_view command,
                                        const char* field);
StatusWith<std::optional<std::string>> GetString(const bson_t* body, std::string_view command,
                                                 const char* field);

// The same checks and getters over fields collected once (present_fields.h),
// for parsers that read many options: no scan of the command per option.
Status CheckFields(const PresentFields& fields, std::string_view command,
                   std::initializer_list<std::string_view> known);
// The same, also telling which known names are there: bit i of *given is
// set when known[i] is (known holds at most 32 names), so a parser with
// many options calls the getters of those it was given only.
Status CheckFields(const PresentFields& fields, std::string_view command,
                   std::span<const std::string_view> known, uint32_t* given);
StatusWith<std::optional<bson::BsonDoc>> GetObject(const PresentFields& fields,
                                                    std::string_view command, const char* field);
StatusWith<std::optional<int64_t>> GetNonNegative(const PresentFields& fields,
                                                  std::string_view command, const char* field);
StatusWith<std::optional<bool>> GetBool(const PresentFields& fields, std::string_view command,
                                        const char* field);
StatusWith<std::optional<int64_t>> GetMaxTimeMS(const PresentFields& fields);

// maxTimeMS, as MongoDB's parseMaxTimeMS: a number (a whole double is
// fine) in [0, INT_MAX]; 0 means no limit; BadValue otherwise. Generic
// arguments are skipped by CheckFields, so each command that honours it
// reads it with this.
StatusWith<std::optional<int64_t>> GetMaxTimeMS(const bson_t* body);

// The collection named by the command's first field ({find: "c"}):
// InvalidNamespace (73) when it is not a non-empty string.
StatusWith<std::string> CollectionArgument(const bson_t* body, std::string_view command);

// mongod's check of a namespace a command reads or drops (NamespaceString::
// isValid): a collection name that is empty, starts with '.', or holds '$'
// or a NUL byte is InvalidNamespace (73) "Invalid namespace specified
// '<db>.<coll>'". Commands that create collections check more (catalog).
Status CheckCollectionNamespace(std::string_view db, std::string_view coll);

// mongod's check before insert, update and delete run (performInserts,
// performUpdates, performDeletes: userAllowedWriteNS, which applies the
// rules of creating a collection): a name the catalog would refuse to
// create is refused with the catalog's InvalidNamespace (73) message, also
// when the collection does not exist and nothing would be written. Ordinary
// names cost one scan and no allocation.
Status CheckWriteNamespace(std::string_view db, std::string_view coll);

// writeConcern.w as a standalone mongod checks it (validateWriteConcern),
// before anything is written: 0, 1 and "majority" are served; w > 1 or a
// named mode cannot be on a single node (2 BadValue), w outside [0, 50] or
// of another type is 9. Sets *unacknowledged for w: 0.
Status CheckWriteConcernW(const bson_t* write_concern, bool* unacknowledged);

// Calls `visit(name, stage)` for each stage of an aggregate command's
// top-level `pipeline`, in order, until it returns false; `stage` is at the
// stage's value. A missing or malformed pipeline visits nothing (the
// command's own parser answers for it).
void ForEachPipelineStage(const bson_t* body,
                          const std::function<bool(std::string_view name, const bson_iter_t& stage)>& visit);

}  // namespace tigerdoc::wire
