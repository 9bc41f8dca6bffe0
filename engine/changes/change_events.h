#pragma once
// Change log rows -> MongoDB 7's change events, for one stream.
//
// A stream watches a collection, a database or the deployment (Scope).
// ShapeEvents turns one row into the events that stream sees: none (another
// namespace; an expanded event without showExpandedEvents), one, or the
// event and an `invalidate` (the watched collection dropped or renamed, the
// watched database dropped), after which the stream ends.
//
// Shapes (fields in this order when present):
//   {_id: <resume token>, operationType, clusterTime: Timestamp, wallTime: Date,
//    fullDocument (insert, replace), ns: {db, coll}, documentKey,
//    updateDescription: {updatedFields, removedFields, truncatedArrays},
//    fullDocument (update, with fullDocument != default), to (rename),
//    operationDescription (expanded events), fullDocumentBeforeChange,
//    lsid, txnNumber (changes made in a transaction)}
//   {_id, operationType: "invalidate", clusterTime, wallTime}

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/changes/change_log.h"
#include "engine/changes/change_stream_options.h"

namespace tigerdoc::engine {

struct ChangeStreamScope {
  std::string db;    // empty: the deployment
  std::string coll;  // empty: the whole database (or deployment)
};

// The current version of a document (fullDocument: updateLookup); nullopt
// when it no longer exists.
using DocumentLookup = std::function<StatusWith<std::optional<bson::BsonDoc>>(
    const std::string& db, const std::string& coll, const bson_t* document_key)>;

// Appends the events `entry` makes for the stream; *invalidated when the
// last one is an invalidate. Errors: NoMatchingDocument (47) when a
// required pre- or post-image is missing.
Status ShapeEvents(const LogEntry& entry, const ChangeStreamScope& scope,
                   const ChangeStreamOptions& options, const DocumentLookup& lookup,
                   std::vector<bson::BsonDoc>* out, bool* invalidated);

}  // namespace tigerdoc::engine
