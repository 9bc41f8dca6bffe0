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

#include <cstddef>
#include <functional>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::engine {

// Makes the document to store from an input (may move from it).
using PrepareInsert = std::function<StatusWith<bson::BsonDoc>(bson::BsonDoc& input)>;
// Inserts `count` prepared documents from `group` in one write unit.
using InsertGroup = std::function<Status(bson::BsonDoc* group, size_t count)>;

std::vector<Status> InsertInGroups(std::vector<bson::BsonDoc>& docs, size_t group_size,
                                   bool ordered, const PrepareInsert& prepare,
                                   const InsertGroup& insert);

}  // namespace tigerdoc::engine
