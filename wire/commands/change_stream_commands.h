#pragma once
// The command side of change streams: aggregate with $changeStream (the
// replica-set check, the stage split off the pipeline, the cursor reply
// with postBatchResumeToken), and the change log's retention parameters.

#include "engine/ops.h"
#include "wire/commands/command.h"

namespace tigerdoc::wire {

// True when some stage of `pipeline` (an array document) is $changeStream.
bool HasChangeStreamStage(const bson_t* pipeline);

// aggregate whose pipeline has a $changeStream (first, else 40602). On a
// standalone (no --replSet): 40573, as mongod.
StatusWith<bson::BsonDoc> RunChangeStreamAggregate(CommandContext& ctx,
                                                   engine::AggregateParams params);

// setParameter changeLogRetentionMB (>= 1) / changeLogRetentionHours
// (> 0, fractions allowed): appends `was` to *out.
bool IsChangeLogParameter(std::string_view name);
Status SetChangeLogParameter(CommandContext& ctx, const bson_iter_t* value, bson_t* out);

}  // namespace tigerdoc::wire
