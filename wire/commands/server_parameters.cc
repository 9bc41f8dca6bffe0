#include "wire/commands/server_parameters.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/changes/change_log.h"
#include "engine/engine.h"
#include "engine/index_builder.h"
#include "wire/commands/change_stream_commands.h"
#include "wire/commands/command_args.h"
#include "wire/commands/server_facts.h"

namespace tigerdoc::wire {
namespace {

struct ServerParameter {
  const char* name;
  // Appends the current value under `name`.
  void (*get)(CommandContext& ctx, bson_t* out, const char* name);
  // Validates and applies `value`; null: set only at start-up (--setParameter
  // or the config file's setParameter section).
  Status (*set)(CommandContext& ctx, const bson_iter_t* value);
};

void GetFeatureCompatibilityVersion(CommandContext&, bson_t* out, const char* name) {
  bson_t fcv;
  bson_append_document_begin(out, name, -1, &fcv);
  BSON_APPEND_UTF8(&fcv, "version", kFeatureCompatibilityVersion);
  bson_append_document_end(out, &fcv);
}

void GetMaxBsonObjectSize(CommandContext&, bson_t* out, const char* name) {
  BSON_APPEND_INT32(out, name, kMaxBsonObjectSize);
}

// Starts as --setParameter cursorTimeoutMillis=N, the config file, or
// MongoDB's default of 10 minutes; setParameter changes it at run time.
void GetCursorTimeoutMillis(CommandContext& ctx, bson_t* out, const char* name) {
  BSON_APPEND_INT64(out, name, static_cast<int64_t>(ctx.engine->cursors().idle_timeout().count()));
}

// mongod's AtomicWord<long long> parameter: any number, converted.
Status SetCursorTimeoutMillis(CommandContext& ctx, const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_NUMBER(value)) {
    return Status(ErrorCode::kBadValue, "cursorTimeoutMillis must be a number");
  }
  ctx.engine->SetCursorTimeout(std::chrono::milliseconds(bson_iter_as_int64(value)));
  return Status::OK();
}

void GetTtlMonitorSleepSecs(CommandContext& ctx, bson_t* out, const char* name) {
  BSON_APPEND_INT32(out, name, static_cast<int32_t>(ctx.engine->ttl_monitor_sleep_secs()));
}

void GetTransactionLifetimeLimitSeconds(CommandContext& ctx, bson_t* out, const char* name) {
  BSON_APPEND_INT32(out, name, static_cast<int32_t>(ctx.engine->sessions().transaction_lifetime_limit_secs.load()));
}

Status SetTransactionLifetimeLimitSeconds(CommandContext& ctx, const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_NUMBER(value) || bson_iter_as_int64(value) < 1 || bson_iter_as_int64(value) > INT32_MAX) {
    return Status(ErrorCode::kBadValue, "transactionLifetimeLimitSeconds must be greater than or equal to 1s");
  }
  ctx.engine->sessions().transaction_lifetime_limit_secs.store(bson_iter_as_int64(value));
  return Status::OK();
}

// The change log's retention (change_stream_commands.cc validates and sets).
void GetChangeLogRetentionMB(CommandContext& ctx, bson_t* out, const char* name) {
  BSON_APPEND_INT64(out, name, ctx.engine->change_log().retention_bytes() / (1024 * 1024));
}

void GetChangeLogRetentionHours(CommandContext& ctx, bson_t* out, const char* name) {
  BSON_APPEND_DOUBLE(out, name, ctx.engine->change_log().retention_seconds() / 3600);
}

Status SetChangeLogRetention(CommandContext& ctx, const bson_iter_t* value) {
  bson::BsonDoc was_ignored;  // the table reports "was" itself
  return SetChangeLogParameter(ctx, value, was_ignored.mutable_get());
}

Status SetTtlMonitorSleepSecs(CommandContext& ctx, const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_NUMBER(value) || bson_iter_as_int64(value) < 1 ||
      bson_iter_as_int64(value) > INT32_MAX) {
    return Status(ErrorCode::kBadValue, "ttlMonitorSleepSecs must be a number between 1 and 2147483647");
  }
  ctx.engine->SetTtlMonitorSleep(bson_iter_as_int64(value));
  return Status::OK();
}

// The index builds' sort memory (engine/index_builder.h), mongod's
// maxIndexBuildMemoryUsageMegabytes: a whole number of megabytes >= 50.
void GetMaxIndexBuildMemoryUsageMegabytes(CommandContext&, bson_t* out, const char* name) {
  BSON_APPEND_INT64(out, name, engine::MaxIndexBuildMemoryUsageMegabytes());
}

Status SetMaxIndexBuildMemoryUsageMegabytes(CommandContext&, const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_NUMBER(value)) {
    return Status(ErrorCode::kBadValue, "maxIndexBuildMemoryUsageMegabytes must be a number");
  }
  return engine::SetMaxIndexBuildMemoryUsageMegabytes(bson_iter_as_int64(value));
}

// Tests only: a budget in bytes below mongod's 50 MB floor, so that a build
// over a few thousand documents spills (0: back to the megabytes).
void GetIndexBuildMemoryLimitBytesForTest(CommandContext&, bson_t* out, const char* name) {
  BSON_APPEND_INT64(out, name, engine::IndexBuildMemoryLimitBytesForTest());
}

Status SetIndexBuildMemoryLimitBytesForTest(CommandContext&, const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_NUMBER(value)) {
    return Status(ErrorCode::kBadValue, "internalIndexBuildMemoryLimitBytesForTest must be a number");
  }
  return engine::SetIndexBuildMemoryLimitBytesForTest(bson_iter_as_int64(value));
}

// The long-work slots (engine/long_work_admission.h): --setParameter
// longWorkSlots=N at start-up, the machine's cores by default; 0 is off.
void GetLongWorkSlots(CommandContext& ctx, bson_t* out, const char* name) {
  BSON_APPEND_INT32(out, name, ctx.engine->operations().long_work().slots());
}

Status SetLongWorkSlots(CommandContext& ctx, const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_NUMBER(value) || bson_iter_as_int64(value) < 0 || bson_iter_as_int64(value) > 1024) {
    return Status(ErrorCode::kBadValue, "longWorkSlots must be a number between 0 and 1024");
  }
  ctx.engine->operations().long_work().SetSlots(static_cast<int>(bson_iter_as_int64(value)));
  return Status::OK();
}

// In the order getParameter: "*" lists them.
constexpr ServerParameter kParameters[] = {
    {"changeLogRetentionHours", GetChangeLogRetentionHours, SetChangeLogRetention},
    {"changeLogRetentionMB", GetChangeLogRetentionMB, SetChangeLogRetention},
    {"cursorTimeoutMillis", GetCursorTimeoutMillis, SetCursorTimeoutMillis},
    {"featureCompatibilityVersion", GetFeatureCompatibilityVersion, nullptr},
    {"internalIndexBuildMemoryLimitBytesForTest", GetIndexBuildMemoryLimitBytesForTest,
     SetIndexBuildMemoryLimitBytesForTest},
    {"longWorkSlots", GetLongWorkSlots, SetLongWorkSlots},
    {"maxBsonObjectSize", GetMaxBsonObjectSize, nullptr},
    {"maxIndexBuildMemoryUsageMegabytes", GetMaxIndexBuildMemoryUsageMegabytes,
     SetMaxIndexBuildMemoryUsageMegabytes},
    {"transactionLifetimeLimitSeconds", GetTransactionLifetimeLimitSeconds,
     SetTransactionLifetimeLimitSeconds},
    {"ttlMonitorSleepSecs", GetTtlMonitorSleepSecs, SetTtlMonitorSleepSecs},
};

const ServerParameter* Find(std::string_view name) {
  for (const auto& p : kParameters) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

}  // namespace

StatusWith<bson::BsonDoc> GetServerParameters(CommandContext& ctx) {
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  const bool all = BSON_ITER_HOLDS_UTF8(&it) && std::string_view(bson_iter_utf8(&it, nullptr)) == "*";
  bson::BsonDoc out;
  bool any = false;
  for (const auto& p : kParameters) {
    bson_iter_t field;
    if (all || bson_iter_init_find(&field, ctx.body(), p.name)) {
      p.get(ctx, out.mutable_get(), p.name);
      any = true;
    }
  }
  if (!any) return Status(ErrorCode::kInvalidOptions, "no option found to get");
  return out;
}

StatusWith<bson::BsonDoc> SetServerParameters(CommandContext& ctx) {
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);  // the command name
  bson::BsonDoc out;
  bool any = false;
  while (bson_iter_next(&it)) {
    const std::string name = bson_iter_key(&it);
    if (IsGenericArgument(name)) continue;
    const ServerParameter* p = Find(name);
    if (p == nullptr) {
      return Status(ErrorCode::kInvalidOptions, "attempted to set unrecognized parameter [" + name +
                                                    "], use help:true to see options ");
    }
    if (p->set == nullptr) {
      return Status(ErrorCode::kIllegalOperation, "not allowed to change [" + name + "] at runtime");
    }
    bson::BsonDoc was;
    p->get(ctx, was.mutable_get(), "was");
    RETURN_IF_ERROR(p->set(ctx, &it));
    if (!any) bson_concat(out.mutable_get(), was.get());  // mongod reports the first one
    any = true;
  }
  if (!any) return Status(ErrorCode::kInvalidOptions, "no option found to set, use help:true to see options ");
  return out;
}

}  // namespace tigerdoc::wire
