// Sorter: in-memory sort, top-k heap, spill runs and their k-way merge.

#include "engine/query/sorter.h"

#include <algorithm>

namespace tigerdoc::query {
namespace {

constexpr size_t kRecordHeaderBytes = 8;
constexpr size_t kMinReaderBuffer = 4 * 1024;
constexpr size_t kMaxReaderBuffer = 1024 * 1024;
constexpr size_t kWriteChunkBytes = 1024 * 1024;

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

}  // namespace

// Reads one run's records back in order through a bounded buffer.
class Sorter::RunReader {
 public:
  RunReader(const SpillFile* file, int64_t begin, int64_t end, size_t buffer_bytes)
      : file_(file), file_pos_(begin), end_(end), buffer_size_(buffer_bytes) {}

  // Loads the next record; false at the end of the run.
  StatusWith<bool> Advance() {
    if (file_pos_ >= end_ && buf_pos_ >= buf_.size()) return false;
    std::string header;
    RETURN_IF_ERROR(Read(kRecordHeaderBytes, &header));
    uint32_t key_len = GetU32(header.data());
    uint32_t doc_len = GetU32(header.data() + 4);
    RETURN_IF_ERROR(Read(key_len, &key_));
    RETURN_IF_ERROR(Read(doc_len, &doc_));
    return true;
  }

  const std::string& key() const { return key_; }
  bson::BsonDoc TakeDoc() const {
    return bson::BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(doc_.data()), doc_.size());
  }

 private:
  // Appends exactly n bytes of the run to *out (replacing its contents).
  Status Read(size_t n, std::string* out) {
    out->clear();
    while (out->size() < n) {
      if (buf_pos_ >= buf_.size()) RETURN_IF_ERROR(Refill());
      size_t take = std::min(n - out->size(), buf_.size() - buf_pos_);
      out->append(buf_, buf_pos_, take);
      buf_pos_ += take;
    }
    return Status::OK();
  }

  Status Refill() {
    if (file_pos_ >= end_) {
      return Status(ErrorCode::kInternalError, "sorter spill file: run ends inside a record");
    }
    size_t want = static_cast<size_t>(std::min<int64_t>(buffer_size_, end_ - file_pos_));
    buf_.resize(want);
    RETURN_IF_ERROR(file_->ReadAt(file_pos_, want, buf_.data()));
    file_pos_ += static_cast<int64_t>(want);
    buf_pos_ = 0;
    return Status::OK();
  }

  const SpillFile* file_;
  int64_t file_pos_;  // next file offset to buffer
  int64_t end_;
  size_t buffer_size_;
  std::string buf_;
  size_t buf_pos_ = 0;
  std::string key_;
  std::string doc_;
};

Sorter::Sorter(SorterOptions options) : options_(std::move(options)) {}

Sorter::~Sorter() = default;

bool Sorter::RowBefore(const Row& a, const Row& b) {
  int c = a.key.compare(b.key);
  return c != 0 ? c < 0 : a.seq < b.seq;
}

Status Sorter::Add(std::string key, bson::BsonDoc doc) {
  INVARIANT(!done_);
  Row row{std::move(key), std::move(doc), next_seq_++};
  ++stats_.rows_added;
  stats_.total_data_bytes += row.bytes();
  if (options_.limit > 0) {
    // A later row never sorts before an equal key added earlier, so one at
    // or after the cutoff can never make the first `limit`.
    if (has_cutoff_ && !RowBefore(row, cutoff_)) return Status::OK();
    memory_bytes_ += row.bytes();
    rows_.push_back(std::move(row));
    std::push_heap(rows_.begin(), rows_.end(), RowBefore);
    if (static_cast<int64_t>(rows_.size()) > options_.limit) {
      std::pop_heap(rows_.begin(), rows_.end(), RowBefore);
      memory_bytes_ -= rows_.back().bytes();
      rows_.pop_back();
    }
  } else {
    memory_bytes_ += row.bytes();
    rows_.push_back(std::move(row));
  }
  stats_.peak_memory_bytes = std::max(stats_.peak_memory_bytes, memory_bytes_);
  if (memory_bytes_ > options_.max_memory_bytes) {
    if (!options_.allow_disk_use) {
      return Status(ErrorCode::kQueryExceededMemoryLimitNoDiskUseAllowed,
                    "Sort exceeded memory limit of " + std::to_string(options_.max_memory_bytes) +
                        " bytes, but did not opt in to external sorting.");
    }
    return Spill();
  }
  return Status::OK();
}

Status Sorter::WriteAll(const std::string& bytes) {
  RETURN_IF_ERROR(file_->Append(bytes));
  stats_.spilled_bytes += static_cast<int64_t>(bytes.size());
  return Status::OK();
}

Status Sorter::Spill() {
  if (!file_) {
    ASSIGN_OR_RETURN(file_, SpillFile::Open(options_.temp_dir));
  }
  std::sort(rows_.begin(), rows_.end(), RowBefore);
  int64_t begin = file_->size();
  std::string chunk;
  chunk.reserve(kWriteChunkBytes + 1024);
  for (const Row& row : rows_) {
    PutU32(&chunk, static_cast<uint32_t>(row.key.size()));
    PutU32(&chunk, static_cast<uint32_t>(row.doc.size()));
    chunk.append(row.key);
    chunk.append(row.doc.bytes());
    if (chunk.size() >= kWriteChunkBytes) {
      RETURN_IF_ERROR(WriteAll(chunk));
      chunk.clear();
    }
  }
  RETURN_IF_ERROR(WriteAll(chunk));
  runs_.emplace_back(begin, file_->size());
  ++stats_.spills;
  if (options_.limit > 0 && static_cast<int64_t>(rows_.size()) == options_.limit) {
    const Row& last = rows_.back();
    if (!has_cutoff_ || RowBefore(last, cutoff_)) {
      cutoff_ = Row{last.key, last.doc.Copy(), last.seq};
      has_cutoff_ = true;
    }
  }
  rows_.clear();
  memory_bytes_ = 0;
  return Status::OK();
}

Status Sorter::Done() {
  INVARIANT(!done_);
  done_ = true;
  std::sort(rows_.begin(), rows_.end(), RowBefore);
  if (runs_.empty()) return Status::OK();
  return StartMerge();
}

Status Sorter::StartMerge() {
  size_t per_reader = static_cast<size_t>(options_.max_memory_bytes) / runs_.size();
  per_reader = std::clamp(per_reader, kMinReaderBuffer, kMaxReaderBuffer);
  for (const auto& [begin, end] : runs_) {
    readers_.push_back(std::make_unique<RunReader>(file_.get(), begin, end, per_reader));
  }
  for (size_t i = 0; i < readers_.size(); ++i) {
    ASSIGN_OR_RETURN(bool has, readers_[i]->Advance());
    if (has) heap_.push_back(i);
  }
  if (mem_pos_ < rows_.size()) heap_.push_back(readers_.size());
  std::make_heap(heap_.begin(), heap_.end(), [this](size_t a, size_t b) { return HeapBefore(b, a); });
  return Status::OK();
}

bool Sorter::HeapBefore(size_t a, size_t b) const {
  const std::string& ka = a == readers_.size() ? rows_[mem_pos_].key : readers_[a]->key();
  const std::string& kb = b == readers_.size() ? rows_[mem_pos_].key : readers_[b]->key();
  int c = ka.compare(kb);
  // Equal keys: the earlier source holds the earlier-added rows.
  return c != 0 ? c < 0 : a < b;
}

StatusWith<bool> Sorter::Next(bson::BsonDoc* doc) {
  INVARIANT(done_);
  if (AtEnd()) return false;
  ++returned_;
  if (readers_.empty()) {
    if (mem_pos_ >= rows_.size()) return false;
    *doc = std::move(rows_[mem_pos_].doc);
    rows_[mem_pos_].key.clear();
    ++mem_pos_;
    return true;
  }
  if (heap_.empty()) return false;
  auto heap_less = [this](size_t a, size_t b) { return HeapBefore(b, a); };  // min-heap
  std::pop_heap(heap_.begin(), heap_.end(), heap_less);
  size_t source = heap_.back();
  heap_.pop_back();
  bool more = false;
  if (source == readers_.size()) {
    *doc = std::move(rows_[mem_pos_].doc);
    ++mem_pos_;
    more = mem_pos_ < rows_.size();
  } else {
    *doc = readers_[source]->TakeDoc();
    ASSIGN_OR_RETURN(more, readers_[source]->Advance());
  }
  if (more) {
    heap_.push_back(source);
    std::push_heap(heap_.begin(), heap_.end(), heap_less);
  }
  return true;
}

}  // namespace tigerdoc::query
