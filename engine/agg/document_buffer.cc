#include "engine/agg/document_buffer.h"

#include <algorithm>
#include <cstring>

#include "engine/base/invariant.h"

namespace tigerdoc::agg {
namespace {

// Bytes an in-memory document is charged: the document and the Value around
// it (MongoDB's caches charge roughly twice the BSON size as well).
size_t RowBytes(const bson::BsonDoc& doc) { return doc.size() * 2 + 64; }

int64_t BsonLength(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return static_cast<int64_t>(v);
}

}  // namespace

Status DocumentBuffer::Clear() {
  docs_.clear();
  memory_bytes_ = 0;
  offsets_.clear();
  write_buffer_.clear();
  read_buffer_.clear();
  read_buffer_offset_ = 0;
  finished_ = false;
  if (spilled_) {
    spilled_ = false;
    RETURN_IF_ERROR(file_->Truncate());
  }
  return Status::OK();
}

Status DocumentBuffer::Add(bson::BsonDoc doc) {
  if (spilled_) return AppendToFile(doc);
  memory_bytes_ += RowBytes(doc);
  docs_.push_back(Value::Document(doc));
  if (memory_bytes_ < options_.max_memory_bytes) return Status::OK();
  if (!options_.spill_allowed) return options_.over_limit;
  return SpillInMemoryDocs();
}

Status DocumentBuffer::SpillInMemoryDocs() {
  if (!file_) {
    ASSIGN_OR_RETURN(file_, query::SpillFile::Open(options_.temp_dir));
  }
  spilled_ = true;
  ++spills_;
  for (const Value& v : docs_) RETURN_IF_ERROR(AppendToFile(v.ToDoc()));
  docs_.clear();
  docs_.shrink_to_fit();
  memory_bytes_ = 0;
  return Status::OK();
}

Status DocumentBuffer::AppendToFile(const bson::BsonDoc& doc) {
  offsets_.push_back(file_->size() + static_cast<int64_t>(write_buffer_.size()));
  write_buffer_.append(doc.bytes());
  if (write_buffer_.size() >= kWriteBufferBytes) {
    RETURN_IF_ERROR(file_->Append(write_buffer_));
    write_buffer_.clear();
  }
  return Status::OK();
}

Status DocumentBuffer::Finish() {
  finished_ = true;
  if (!spilled_ || write_buffer_.empty()) return Status::OK();
  RETURN_IF_ERROR(file_->Append(write_buffer_));
  write_buffer_.clear();
  write_buffer_.shrink_to_fit();
  return Status::OK();
}

StatusWith<Value> DocumentBuffer::Get(size_t i) const {
  INVARIANT(finished_ && i < size());
  if (!spilled_) return docs_[i];
  const int64_t begin = offsets_[i];
  const int64_t end = i + 1 < offsets_.size() ? offsets_[i + 1] : file_->size();
  const int64_t buffer_end = read_buffer_offset_ + static_cast<int64_t>(read_buffer_.size());
  if (begin < read_buffer_offset_ || end > buffer_end) {
    // Refill from this document on: the following rows come with it.
    size_t want = std::max<size_t>(kReadBufferBytes, static_cast<size_t>(end - begin));
    want = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(want), file_->size() - begin));
    read_buffer_.resize(want);
    RETURN_IF_ERROR(file_->ReadAt(begin, want, read_buffer_.data()));
    read_buffer_offset_ = begin;
  }
  const char* p = read_buffer_.data() + (begin - read_buffer_offset_);
  if (BsonLength(p) != end - begin) {
    return Status(ErrorCode::kInternalError, "spilled documents: corrupt document");
  }
  bson_t view;
  if (!bson_init_static(&view, reinterpret_cast<const uint8_t*>(p), static_cast<size_t>(end - begin))) {
    return Status(ErrorCode::kInternalError, "spilled documents: corrupt document");
  }
  return Value::Document(&view);
}

}  // namespace tigerdoc::agg
