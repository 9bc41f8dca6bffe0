#pragma once
// InsertInGroups: the batching of an insert of many documents, shared by
// Engine::InsertMany and the time-series inserts (InsertMeasurements).
//
// Consecutive documents that `prepare` accepts form a group of at most
// `group_size`, inserted by `insert` as one write unit (one commit for the
// group). A group that fails has rolled back whole, so its documents are
// inserted again one at a time to find and report the failing ones (a
// group of one is not retried: its failure is already known, and in a
// client's transaction, which ended with it, a retry could only answer
// NoSuchTransaction). A document `prepare` refuses ends its group and gets
// its own error. Results: one Status per document in order; `ordered`
// stops at the first failure (the results then end with it).
//
// The input documents are the caller's bytes (for an insert command, views
// into the request): nothing here keeps them past the call, and a document
// `prepare` leaves as it is reaches `insert` without a copy.

#include <bson/bson.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::engine {

// A document ready to store: the input's bytes as they are, or the document
// prepare built from them (e.g. with _id generated or moved first).
class PreparedInsert {
 public:
  explicit PreparedInsert(std::string_view input) : input_(input) {}
  explicit PreparedInsert(bson::BsonDoc built) : built_(std::move(built)) {}

  // Valid while this object and the input live.
  std::string_view bytes() const { return built_ ? built_->bytes() : input_; }
  // Initialises *out in place as a read-only view of bytes() (in place: a
  // copied static bson_t points into the struct it was copied from).
  void View(bson_t* out) const;

 private:
  std::string_view input_;
  std::optional<bson::BsonDoc> built_;
};

// Makes the document to store from an input's bytes (one valid document).
using PrepareInsert = std::function<StatusWith<PreparedInsert>(std::string_view input)>;
// Inserts `count` prepared documents from `group` in one write unit.
using InsertGroup = std::function<Status(const PreparedInsert* group, size_t count)>;

std::vector<Status> InsertInGroups(std::span<const std::string_view> docs, size_t group_size,
                                   bool ordered, const PrepareInsert& prepare,
                                   const InsertGroup& insert);

}  // namespace tigerdoc::engine
