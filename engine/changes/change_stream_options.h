#pragma once
// The $changeStream stage's argument, parsed and checked with MongoDB 7's
// errors, and what the aggregate command hands the engine.
//
//   {$changeStream: {fullDocument: "default" | "updateLookup" |
//                                  "whenAvailable" | "required",
//                    fullDocumentBeforeChange: "off" | "whenAvailable" | "required",
//                    showExpandedEvents: <bool>, allChangesForCluster: <bool>,
//                    resumeAfter: <token> | startAfter: <token> |
//                    startAtOperationTime: <Timestamp>}}
//
// Errors: 14 wrong types, 2 an unknown enumeration value, 40415 an unknown
// field, 50865 both resumeAfter and startAfter, 40674 a token with
// startAtOperationTime, 260 resumeAfter an invalidate token, 2 a malformed
// token.

#include <optional>
#include <string>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/changes/resume_token.h"
#include "engine/repl/logical_clock.h"

namespace tigerdoc::engine {

struct ChangeStreamOptions {
  enum class FullDocument { kDefault, kUpdateLookup, kWhenAvailable, kRequired };
  enum class BeforeChange { kOff, kWhenAvailable, kRequired };
  FullDocument full_document = FullDocument::kDefault;
  BeforeChange before_change = BeforeChange::kOff;
  bool show_expanded_events = false;
  bool all_changes_for_cluster = false;
  std::optional<ResumeToken> resume_after;
  std::optional<ResumeToken> start_after;
  std::optional<repl::Timestamp> start_at_operation_time;

  static StatusWith<ChangeStreamOptions> Parse(const bson_t* spec);
};

// aggregate with a leading $changeStream: on a collection (`coll`), a
// database ({aggregate: 1}, coll empty) or the deployment ({aggregate: 1}
// on admin with allChangesForCluster).
struct ChangeStreamParams {
  std::string db;
  std::string coll;
  bson::BsonDoc spec;      // the $changeStream stage's argument
  bson::BsonDoc pipeline;  // the stages after it, an array document
  std::optional<int64_t> batch_size;
};

}  // namespace tigerdoc::engine
