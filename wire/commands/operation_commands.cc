// archive (engine/archive/: a crash-safe move into an archive collection),
// and the operation commands that watch and stop it and every other
// running command: currentOp, killOp, and the $currentOp stage's documents.

#include <unistd.h>

#include "engine/archive/archive_spec.h"
#include "engine/query/matcher/matcher.h"
#include "wire/commands/command_args.h"
#include "wire/commands/command_registry.h"

namespace tigerdoc::wire {
namespace {

// "<hostname>:<port>", currentOp's `host`.
std::string HostPort(const CommandContext& ctx) {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return std::string(host) + ":" + std::to_string(ctx.server ? ctx.server->port : 0);
}

// A count as MongoDB's replies carry them: an int, a long only when it
// does not fit.
void AppendCount(bson_t* out, const char* name, int64_t n) {
  if (n >= INT32_MIN && n <= INT32_MAX) {
    BSON_APPEND_INT32(out, name, static_cast<int32_t>(n));
  } else {
    BSON_APPEND_INT64(out, name, n);
  }
}

}  // namespace

// {archive: "<coll>", to, filter, olderThan, set, whenMatched, batchSize,
//  unionView, maxTimeMS} -> {moved, batches}.
StatusWith<bson::BsonDoc> RunArchive(CommandContext& ctx) {
  const std::string name = "archive";
  RETURN_IF_ERROR(CheckFields(ctx.body(), name,
                              {"to", "filter", "olderThan", "set", "whenMatched", "batchSize",
                               "unionView"}));
  ASSIGN_OR_RETURN(std::string coll, CollectionArgument(ctx.body(), name));
  RETURN_IF_ERROR(GetMaxTimeMS(ctx.body()).status());  // the deadline is the operation's
  ASSIGN_OR_RETURN(engine::ArchiveSpec spec,
                   engine::ParseArchiveSpec(ctx.body(), engine::ArchiveForm::kCommand, name,
                                            ctx.db(), coll));
  ASSIGN_OR_RETURN(engine::ArchiveResult result, ctx.engine->Archive(spec, ctx.operation));
  bson::BsonDoc out;
  AppendCount(out.mutable_get(), "moved", result.moved);
  AppendCount(out.mutable_get(), "batches", result.batches);
  return out;
}

StatusWith<std::vector<bson::BsonDoc>> CurrentOpDocuments(CommandContext& ctx, const bson_t* filter) {
  std::unique_ptr<query::Matcher> matcher;
  if (filter != nullptr && !bson_empty(filter)) {
    ASSIGN_OR_RETURN(matcher, query::Matcher::Parse(filter));
  }
  std::vector<bson::BsonDoc> out;
  for (bson::BsonDoc& doc : ctx.engine->operations().CurrentOps(HostPort(ctx))) {
    if (matcher == nullptr || matcher->Matches(doc.get())) out.push_back(std::move(doc));
  }
  // Open transactions between statements (MongoDB's idle sessions).
  for (bson::BsonDoc& doc : ctx.engine->sessions().IdleTransactionsForCurrentOp()) {
    if (matcher == nullptr || matcher->Matches(doc.get())) out.push_back(std::move(doc));
  }
  return out;
}

// {currentOp: 1, $all, $ownOps, <filter fields>} -> {inprog: [...]}: every
// field but the command's own options is a query filter on the operations'
// documents, as in MongoDB.
StatusWith<bson::BsonDoc> RunCurrentOp(CommandContext& ctx) {
  bson::BsonDoc filter;
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  while (bson_iter_next(&it)) {
    std::string_view key = bson_iter_key(&it);
    if (key == "$all" || key == "$ownOps" || key == "$truncateOps" || IsGenericArgument(key)) continue;
    bson_append_iter(filter.mutable_get(), bson_iter_key(&it), -1, &it);
  }
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> ops, CurrentOpDocuments(ctx, filter.get()));
  bson::BsonDoc out;
  bson_t inprog;
  BSON_APPEND_ARRAY_BEGIN(out.mutable_get(), "inprog", &inprog);
  for (size_t i = 0; i < ops.size(); ++i) BSON_APPEND_DOCUMENT(&inprog, std::to_string(i).c_str(), ops[i].get());
  bson_append_array_end(out.mutable_get(), &inprog);
  return out;
}

// {killOp: 1, op: <opid>} -> {info: "attempting to kill op"}: the operation
// stops at its next interrupt check with 11601 Interrupted. An opid that
// does not run gets the same answer, as in MongoDB.
StatusWith<bson::BsonDoc> RunKillOp(CommandContext& ctx) {
  RETURN_IF_ERROR(CheckFields(ctx.body(), "killOp", {"op"}));
  bson_iter_t it;
  if (!bson_iter_init_find(&it, ctx.body(), "op")) {
    return Status(ErrorCode::kLocation40414, "BSON field 'killOp.op' is missing but a required field");
  }
  if (!BSON_ITER_HOLDS_NUMBER(&it)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'killOp.op' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&it))) +
                                                "', expected types '[long, int, decimal, double]'");
  }
  ctx.engine->operations().Kill(bson_iter_as_int64(&it));
  bson::BsonDoc out;
  BSON_APPEND_UTF8(out.mutable_get(), "info", "attempting to kill op");
  return out;
}

}  // namespace tigerdoc::wire
