#pragma once
// MongoClient: a libmongoc client for end-to-end tests, plus small readers
// for the BSON replies the tests assert on.
//
// The first MongoClient calls mongoc_init() (once per process; mongoc_cleanup
// runs at exit). Each MongoClient owns one mongoc_client_t connected to one
// server (directConnection). RunCommand returns the server's reply document
// whether it says ok:1 or ok:0, so tests can assert on error codes and
// messages; when no reply arrived at all (network error, server selection
// failure) it returns a synthesized {ok: 0, clientError: <message>,
// clientErrorDomain, clientErrorCode} so a test failure says what happened.
//
// Thread-safety: a MongoClient is used by one thread at a time (as
// mongoc_client_t); use one per thread.

#include <mongoc/mongoc.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::testutil {

using tigerdoc::bson::BsonDoc;

class MongoClient {
 public:
  explicit MongoClient(const std::string& uri);
  ~MongoClient();
  MongoClient(const MongoClient&) = delete;
  MongoClient& operator=(const MongoClient&) = delete;

  // Runs `command` against database `db` (OP_MSG with everything in the
  // body section) and returns the reply; see the header comment.
  BsonDoc RunCommand(std::string_view db, const BsonDoc& command);
  // Same, with the command written as relaxed extended JSON.
  BsonDoc RunCommand(std::string_view db, std::string_view command_json);

  // Inserts with mongoc_collection_insert_many, which sends the documents
  // as an OP_MSG kind-1 document sequence; returns the driver's reply
  // ({insertedCount, writeErrors...}) or the synthesized client error.
  BsonDoc InsertMany(std::string_view db, std::string_view coll, const std::vector<BsonDoc>& docs,
                     bool ordered = true);

  mongoc_client_t* get() { return client_; }

 private:
  BsonDoc ClientError(const bson_error_t& error) const;
  mongoc_client_t* client_ = nullptr;
};

// ---- Reading replies -------------------------------------------------------

// The element at a dotted path ("cursor.firstBatch.0._id"; array elements
// by index), or nullopt.
std::optional<bson_iter_t> Lookup(const BsonDoc& doc, std::string_view dotted_path);
bool Has(const BsonDoc& doc, std::string_view path);
// Numeric value of int32/int64/double/bool at `path`; nullopt when missing
// or not a number.
std::optional<double> Number(const BsonDoc& doc, std::string_view path);
// int32 or int64 value; nullopt otherwise (doubles are not accepted: MongoDB
// sends counts as integers and the tests check that).
std::optional<int64_t> Integer(const BsonDoc& doc, std::string_view path);
std::optional<std::string> String(const BsonDoc& doc, std::string_view path);
// BSON type at `path`, or BSON_TYPE_EOD when missing.
bson_type_t TypeAt(const BsonDoc& doc, std::string_view path);
// The embedded document or array at `path` (arrays as their BSON document
// form, keys "0", "1", ...); an empty document when missing.
BsonDoc SubDoc(const BsonDoc& doc, std::string_view path);
// The elements of the array at `path`, each an embedded document.
std::vector<BsonDoc> DocArray(const BsonDoc& doc, std::string_view path);
// Number of elements in the array at `path` (0 when missing).
size_t ArrayLength(const BsonDoc& doc, std::string_view path);

// Canonical extended JSON: keeps numeric types apart ({"$numberInt": "1"}
// vs {"$numberLong": "1"}), so equal strings mean equal documents.
std::string CanonicalJson(const BsonDoc& doc);
// Canonical JSON of a document written as relaxed JSON: the usual way to
// state an expected document in a test.
std::string CanonicalJson(std::string_view relaxed_json);
// Relaxed JSON, for readable failure messages.
std::string Json(const BsonDoc& doc);

// ok field is a number equal to 1.
bool IsOk(const BsonDoc& reply);

}  // namespace tigerdoc::testutil
