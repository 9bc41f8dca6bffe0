// $changeStream argument parsing (grammar and errors in the header).

#include "engine/changes/change_stream_options.h"

#include <string_view>

#include "engine/bson/type_name.h"

namespace tigerdoc::engine {
namespace {

constexpr std::string_view kStage = "$changeStream";

std::string FieldName(std::string_view field) {
  return std::string(kStage) + "." + std::string(field);
}

Status WrongType(const bson_iter_t* it, std::string_view expected) {
  return Status(ErrorCode::kTypeMismatch,
                "BSON field '" + FieldName(bson_iter_key(it)) + "' is the wrong type '" +
                    bson::TypeName(bson_iter_type(it)) + "', expected type '" +
                    std::string(expected) + "'");
}

Status BadEnum(const bson_iter_t* it) {
  return Status(ErrorCode::kBadValue, "Enumeration value '" +
                                          std::string(bson_iter_utf8(it, nullptr)) +
                                          "' for field '" + FieldName(bson_iter_key(it)) +
                                          "' is not a valid value.");
}

}  // namespace

StatusWith<ChangeStreamOptions> ChangeStreamOptions::Parse(const bson_t* spec) {
  ChangeStreamOptions options;
  bson_iter_t it;
  bson_iter_init(&it, spec);
  while (bson_iter_next(&it)) {
    const std::string_view field = bson_iter_key(&it);
    if (field == "fullDocument") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(&it, "string");
      const std::string_view value = bson_iter_utf8(&it, nullptr);
      if (value == "default") {
        options.full_document = FullDocument::kDefault;
      } else if (value == "updateLookup") {
        options.full_document = FullDocument::kUpdateLookup;
      } else if (value == "whenAvailable") {
        options.full_document = FullDocument::kWhenAvailable;
      } else if (value == "required") {
        options.full_document = FullDocument::kRequired;
      } else {
        return BadEnum(&it);
      }
    } else if (field == "fullDocumentBeforeChange") {
      if (!BSON_ITER_HOLDS_UTF8(&it)) return WrongType(&it, "string");
      const std::string_view value = bson_iter_utf8(&it, nullptr);
      if (value == "off") {
        options.before_change = BeforeChange::kOff;
      } else if (value == "whenAvailable") {
        options.before_change = BeforeChange::kWhenAvailable;
      } else if (value == "required") {
        options.before_change = BeforeChange::kRequired;
      } else {
        return BadEnum(&it);
      }
    } else if (field == "showExpandedEvents" || field == "allChangesForCluster") {
      if (!BSON_ITER_HOLDS_BOOL(&it)) return WrongType(&it, "bool");
      (field == "showExpandedEvents" ? options.show_expanded_events
                                     : options.all_changes_for_cluster) = bson_iter_bool(&it);
    } else if (field == "resumeAfter" || field == "startAfter") {
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return WrongType(&it, "object");
      bson_t token = bson::SubDocumentView(&it);
      ASSIGN_OR_RETURN(ResumeToken parsed, ResumeToken::FromBson(&token, FieldName(field)));
      (field == "resumeAfter" ? options.resume_after : options.start_after) = parsed;
    } else if (field == "startAtOperationTime") {
      if (!BSON_ITER_HOLDS_TIMESTAMP(&it)) return WrongType(&it, "timestamp");
      repl::Timestamp ts;
      bson_iter_timestamp(&it, &ts.seconds, &ts.increment);
      options.start_at_operation_time = ts;
    } else {
      return Status(ErrorCode::kLocation40415,
                    "BSON field '" + FieldName(field) + "' is an unknown field.");
    }
  }
  if (options.resume_after && options.start_after) {
    return Status(static_cast<ErrorCode>(50865),
                  "Do not specify both 'resumeAfter' and 'startAfter' in a $changeStream stage");
  }
  if ((options.resume_after || options.start_after) && options.start_at_operation_time) {
    return Status(static_cast<ErrorCode>(40674),
                  "Only one type of resume option is allowed, but multiple were found.");
  }
  if (options.resume_after && options.resume_after->kind == ResumeToken::Kind::kInvalidate) {
    return Status(ErrorCode::kInvalidResumeToken,
                  "Attempting to resume a change stream using 'resumeAfter' is not allowed from "
                  "an invalidate notification.");
  }
  return options;
}

}  // namespace tigerdoc::engine
