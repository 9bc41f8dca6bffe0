// ChangeStreamCursor: read, shape, filter, wait (contract in the header).

#include "engine/changes/change_stream_cursor.h"

#include <algorithm>

#include "engine/agg/expression_context.h"

namespace tigerdoc::engine {
namespace {

// Rows read from the log per pass: bounds the memory of one pass over
// rows this stream does not want.
constexpr size_t kRowsPerRead = 1000;

// The user's stages may not touch the resume token: a stream could not
// resume from an event whose _id they changed (MongoDB's 280).
bool SameId(const bson_t* event, const bson_t* output) {
  bson_iter_t a, b;
  if (!bson_iter_init_find(&a, event, "_id") || !bson_iter_init_find(&b, output, "_id")) {
    return false;
  }
  const bson_value_t* va = bson_iter_value(&a);
  const bson_value_t* vb = bson_iter_value(&b);
  return va->value_type == BSON_TYPE_DOCUMENT && vb->value_type == BSON_TYPE_DOCUMENT &&
         va->value.v_doc.data_len == vb->value.v_doc.data_len &&
         memcmp(va->value.v_doc.data, vb->value.v_doc.data, va->value.v_doc.data_len) == 0;
}

}  // namespace

ChangeStreamCursor::ChangeStreamCursor(ChangeLog* log, ChangeStreamScope scope,
                                       ChangeStreamOptions options, DocumentLookup lookup,
                                       std::unique_ptr<agg::ExpressionContext> ctx,
                                       std::optional<agg::Pipeline> pipeline, ResumeToken start)
    : log_(log),
      scope_(std::move(scope)),
      options_(std::move(options)),
      lookup_(std::move(lookup)),
      ctx_(std::move(ctx)),
      pipeline_(std::move(pipeline)),
      position_(start) {}

void ChangeStreamCursor::SetInterrupt(const query::Interrupt& interrupt) { interrupt_ = interrupt; }

Status ChangeStreamCursor::RunPipeline(bson::BsonDoc event, std::vector<bson::BsonDoc>* out) {
  if (!pipeline_ || pipeline_->size() == 0) {
    out->push_back(std::move(event));
    return Status::OK();
  }
  const bson::BsonDoc original = event.Copy();
  std::vector<bson::BsonDoc> input;
  input.push_back(std::move(event));
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> results,
                   agg::RunToVector(*pipeline_,
                                    std::make_unique<agg::VectorDocumentSource>(std::move(input))));
  for (bson::BsonDoc& result : results) {
    if (!SameId(original.get(), result.get())) {
      return Status(ErrorCode::kChangeStreamFatalError,
                    "Encountered an event whose _id field, which contains the resume token, was "
                    "modified by the pipeline. Modifying the _id field of an event makes it "
                    "impossible to resume the stream from that point. Only transformations that "
                    "retain the unmodified _id field are allowed.");
    }
    out->push_back(std::move(result));
  }
  return Status::OK();
}

Status ChangeStreamCursor::FillBatch(storage::Session& session, int64_t max_docs,
                                     int64_t max_bytes, std::vector<bson::BsonDoc>* out,
                                     bool* exhausted) {
  *exhausted = false;
  if (invalidated_) {
    *exhausted = true;
    return Status::OK();
  }
  const auto deadline = std::chrono::steady_clock::now() + await_;
  const size_t first = out->size();
  size_t counted = first;  // out[first, counted) are in `bytes`
  int64_t bytes = 0;
  for (;;) {
    std::vector<LogEntry> entries;
    LogPosition through;
    RETURN_IF_ERROR(log_->Read(session, position_.pos, kRowsPerRead, &entries, &through));
    for (const LogEntry& entry : entries) {
      std::vector<bson::BsonDoc> events;
      bool invalidated = false;
      RETURN_IF_ERROR(ShapeEvents(entry, scope_, options_, lookup_, &events, &invalidated));
      for (bson::BsonDoc& event : events) {
        const bool is_invalidate = invalidated && &event == &events.back();
        RETURN_IF_ERROR(RunPipeline(std::move(event), out));
        if (is_invalidate) {
          position_ = ResumeToken{entry.pos, ResumeToken::Kind::kInvalidate};
          invalidated_ = true;
          *exhausted = true;
          return Status::OK();
        }
      }
      position_ = ResumeToken{entry.pos, ResumeToken::Kind::kEvent};
      for (; counted < out->size(); ++counted) bytes += static_cast<int64_t>((*out)[counted].size());
      const int64_t returned = static_cast<int64_t>(out->size() - first);
      if ((max_docs > 0 && returned >= max_docs) || bytes >= max_bytes) return Status::OK();
    }
    if (entries.size() < kRowsPerRead) {
      // Read to the readable position: a high-water mark past rows this
      // stream skipped. When the last row read gave the last event, no row
      // lies between it and the readable position (ticks without rows were
      // rolled back), so the event's own token says the same and stays
      // equal to the last _id returned, as MongoDB's does.
      const bool ends_at_event = !entries.empty() && entries.back().pos == position_.pos &&
                                 out->size() > first;
      if (position_.pos < through && !ends_at_event) {
        position_ = ResumeToken{through, ResumeToken::Kind::kHighWaterMark};
      }
    }
    if (out->size() > first) return Status::OK();
    if (entries.size() == kRowsPerRead) continue;  // more rows are readable now
    if (std::chrono::steady_clock::now() >= deadline) return Status::OK();
    query::BeforeIdleWait();  // no long-work slot held while idle
    if (!log_->WaitBeyond(position_.pos, deadline, kill_)) {
      RETURN_IF_ERROR(interrupt_.Check());
      return Status::OK();
    }
  }
}

}  // namespace tigerdoc::engine
