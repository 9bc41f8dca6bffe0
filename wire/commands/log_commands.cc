// The log's commands: getLog serves the lines engine/log keeps in memory
// ("global": the last 1024, "startupWarnings": warnings before the server
// was ready), the same JSON lines the log file or stdout has; logRotate
// renames the log file and opens a new one (as SIGUSR1).

#include "engine/log/log.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {

StatusWith<bson::BsonDoc> RunGetLog(CommandContext& ctx) {
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  if (!BSON_ITER_HOLDS_UTF8(&it)) {
    return Status(ErrorCode::kTypeMismatch, "Argument to getLog must be of type String; found " +
                                                std::string(BsonTypeName(bson_iter_type(&it))) +
                                                " of type " + std::string(BsonTypeName(bson_iter_type(&it))));
  }
  std::string_view which = bson_iter_utf8(&it, nullptr);
  bson::BsonDoc out;
  if (which == "*") {
    bson_t names;
    bson_append_array_begin(out.mutable_get(), "names", -1, &names);
    BSON_APPEND_UTF8(&names, "0", "global");
    BSON_APPEND_UTF8(&names, "1", "startupWarnings");
    bson_append_array_end(out.mutable_get(), &names);
    return out;
  }
  if (which != "global" && which != "startupWarnings") {
    return Status(ErrorCode::kOperationFailed, "No log named '" + std::string(which) + "'");
  }
  log::Recent recent = log::RecentLines(which);
  BSON_APPEND_INT64(out.mutable_get(), "totalLinesWritten", recent.total_lines_written);
  bson_t lines;
  bson_append_array_begin(out.mutable_get(), "log", -1, &lines);
  for (size_t i = 0; i < recent.lines.size(); ++i) {
    const std::string key = std::to_string(i);
    BSON_APPEND_UTF8(&lines, key.c_str(), recent.lines[i].c_str());
  }
  bson_append_array_end(out.mutable_get(), &lines);
  return out;
}

// {logRotate: 1} or {logRotate: "server"} (mongod 5+ also names "audit",
// which tigerdoc does not have).
StatusWith<bson::BsonDoc> RunLogRotate(CommandContext& ctx) {
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  if (BSON_ITER_HOLDS_UTF8(&it)) {
    std::string_view which = bson_iter_utf8(&it, nullptr);
    if (which != "server") {
      return Status(ErrorCode::kNoSuchKey, "Unknown log type for rotate: " + std::string(which));
    }
  }
  Status rotated = log::Rotate();
  bson::BsonDoc attr;
  BSON_APPEND_UTF8(attr.mutable_get(), "status", rotated.ok() ? "ok" : rotated.ToString().c_str());
  log::Write(rotated.ok() ? log::Severity::kInfo : log::Severity::kError, "CONTROL", 23166,
             "Log rotation initiated by logRotate", attr.get());
  RETURN_IF_ERROR(rotated);
  return bson::BsonDoc();
}

}  // namespace tigerdoc::wire
