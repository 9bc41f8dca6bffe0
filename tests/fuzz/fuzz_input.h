#pragma once
// FuzzInput: how the structure-aware fuzz targets read their input.
//
//   input := document document* [trailing bytes, ignored]
//
// The first document is the specification under test (a filter, an update,
// a pipeline, a projection); the ones after it are the documents it is
// applied to. Each document is read exactly as the server reads a command
// body (wire::ByteReader::ReadDocument: size bounds, nesting depth 200,
// bson_validate), so a target never sees a document the server would have
// refused at the edge. Reading stops at the first malformed document. When
// no target document follows, Targets() supplies a fixed one with nested
// documents, arrays and several types, so a specification alone still runs.
//
// Thread-safety: a value on one stack.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/bson/bson_doc.h"
#include "wire/protocol/byte_reader.h"

namespace tigerdoc::fuzz {

class FuzzInput {
 public:
  // Reads at most `max_docs` documents (the spec included).
  FuzzInput(const uint8_t* data, size_t size, size_t max_docs = 8) {
    wire::ByteReader reader(data, size);
    while (docs_.size() < max_docs && !reader.AtEnd()) {
      auto doc = reader.ReadDocument();
      if (!doc.ok()) break;
      docs_.push_back(std::move(doc.value()));
    }
  }

  // False when not even the specification document was well formed.
  bool ok() const { return !docs_.empty(); }
  // REQUIRES: ok().
  const bson::BsonDoc& spec() const { return docs_.front(); }
  // The documents the specification applies to (at least one when ok()).
  std::vector<const bson::BsonDoc*> Targets() const {
    std::vector<const bson::BsonDoc*> out;
    for (size_t i = 1; i < docs_.size(); ++i) out.push_back(&docs_[i]);
    if (out.empty()) out.push_back(&DefaultTarget());
    return out;
  }
  // Copies of Targets(), for APIs that take documents by value.
  std::vector<bson::BsonDoc> TargetCopies() const {
    std::vector<bson::BsonDoc> out;
    for (const bson::BsonDoc* doc : Targets()) out.push_back(doc->Copy());
    return out;
  }

  static const bson::BsonDoc& DefaultTarget() {
    static const bson::BsonDoc kDoc = bson::BsonDoc::FromJson(
        R"({"_id": 1, "a": 1, "b": "xyz", "c": [1, 2.5, {"d": 3}, [4]],
            "e": {"f": null, "g": {"$numberLong": "7"}, "h": [{"i": 1}, {"i": "2"}]},
            "t": {"$date": "2024-02-29T12:00:00Z"}})");
    return kDoc;
  }

 private:
  std::vector<bson::BsonDoc> docs_;
};

// Whether `doc` is structurally sound BSON (sizes, types, terminators, at
// any depth). Not bson_validate: libbson's validator also refuses field
// names that are not UTF-8, and the server may legitimately produce those
// from string values that were never UTF-8 checked (MongoDB does not check
// either), e.g. {$count: "<bytes>"} or {$rename: {a: "<bytes>"}}.
inline bool WellFramed(const bson_t* doc) {
  return wire::CheckBsonNesting(bson_get_data(doc), doc->len, 1 << 20).ok();
}
inline bool WellFramed(const bson::BsonDoc& doc) { return WellFramed(doc.get()); }

}  // namespace tigerdoc::fuzz
