#pragma once
// ArchiveSpec: what an archive move does, parsed from the `archive` command
// or from the `archive` collection option (patterns/archive/), which share
// every field but the source (the command's first field, or the collection
// that carries the option) and `every` (the option's schedule):
//
//   to          "<coll>" | {db: "<db>", coll: "<coll>"}     required
//   filter      a query filter                                 default {}
//   olderThan   {field: "<path>", seconds: <number >= 0>}      default none
//   set         {<field>: <expression>, ...}  ($$NOW is fixed per move)
//   whenMatched "fail" | "replace" | "keepExisting" | "merge"  default "fail"
//   batchSize   1 .. 25000                                     default 1000
//   unionView   "<view name>"                                  default none
//   every       <seconds >= 1>                                 option only, required
//
// Errors name the field as MongoDB's IDL does ("BSON field 'archive.to'
// ...", "BSON field 'create.archive.every' ..."): 14 TypeMismatch (wrong
// BSON type), 2 BadValue (out of range, bad enumeration value, a target
// equal to the source, a system or internal namespace), 9 FailedToParse
// (a filter that does not parse), 40414 (a required field missing),
// 40415 (an unknown field). Checks that need the catalog (views, missing
// collections) are the engine's, when the move runs.
//
// Thread-safety: pure functions over values.

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::engine {

inline constexpr int64_t kArchiveMaxBatchSize = 25000;
inline constexpr int64_t kArchiveDefaultBatchSize = 1000;

struct ArchiveSpec {
  std::string db;    // the source's database (also the default of to.db)
  std::string coll;  // the source collection
  std::string to_db;
  std::string to_coll;
  bool to_db_given = false;  // `to` named a database ({db, coll})
  bson::BsonDoc filter;
  std::string older_than_field;     // empty: no age condition
  int64_t older_than_seconds = 0;
  bson::BsonDoc set;                // empty: no fields added
  std::string when_matched = "fail";
  int64_t batch_size = kArchiveDefaultBatchSize;
  std::string union_view;           // empty: none
  int64_t every_seconds = 0;        // the option's schedule; 0 for the command

  std::string source_ns() const { return db + "." + coll; }
  std::string target_ns() const { return to_db + "." + to_coll; }
};

// What a move did: documents moved and batches committed.
struct ArchiveResult {
  int64_t moved = 0;
  int64_t batches = 0;
  bool created_target = false;  // the move created the archive collection
};

enum class ArchiveForm {
  kCommand,  // fields of the archive command; the caller checked unknown fields
  kOption,   // the value of the `archive` collection option; `every` required
};

// Parses `doc` into a spec for the source `db`.`coll`. `prefix` is what
// errors put before a field name: "archive" for the command,
// "create.archive" / "collMod.archive" for the option. For kCommand the
// first field of `doc` (the command name) is skipped and fields not listed
// above are ignored (the command checks them).
StatusWith<ArchiveSpec> ParseArchiveSpec(const bson_t* doc, ArchiveForm form,
                                         std::string_view prefix, std::string db,
                                         std::string coll);

// The option's canonical form (every field spelled out; `to` a name, or
// {db, coll} when a database was given, so the option stays valid for the
// collection it belongs to), as stored in the catalog and shown by
// listCollections; parses back to the same spec.
bson::BsonDoc ArchiveOptionDocument(const ArchiveSpec& spec);

}  // namespace tigerdoc::engine
