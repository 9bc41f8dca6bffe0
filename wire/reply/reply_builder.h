#pragma once
// Reply documents in MongoDB's shapes: the one place a Status becomes an
// {ok: 0, errmsg, code, codeName} reply, success replies that end in
// {ok: 1}, cursor replies, and write errors.
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::wire {

// {ok: 0.0, errmsg, code, codeName, <status.extra_bson() fields>}.
bson::BsonDoc ErrorReply(const Status& status);

// Appends `ok: 1.0` to `fields` and returns it.
bson::BsonDoc OkReply(bson::BsonDoc fields);

// {cursor: {<batch_field>: [docs...], id: NumberLong(id), ns}}, the fields
// of a cursor reply before `ok`. `batch_field` is "firstBatch" or "nextBatch".
// A change stream's cursor also has postBatchResumeToken after the batch
// (when `post_batch_resume_token` is given and not empty).
bson::BsonDoc CursorFields(std::string_view batch_field, int64_t cursor_id, std::string_view ns,
                          const std::vector<bson::BsonDoc>& docs,
                          const bson_t* post_batch_resume_token = nullptr);

// Appends one write error {index, code, errmsg, <extra fields>} to the
// array being built in `write_errors` (no codeName: mongod sends none there).
void AppendWriteError(bson_t* write_errors, uint32_t array_index, int64_t statement_index,
                      const Status& status);

}  // namespace tigerdoc::wire
