#include "patterns/outlier/overflow_chunks.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "engine/write/collection_writer.h"

namespace tigerdoc::patterns::outlier {
namespace {

void AppendChunkId(bson_t* parent, const char* key, const bson_value_t* parent_id, int64_t seq) {
  bson_t id;
  bson_append_document_begin(parent, key, -1, &id);
  bson_append_value(&id, "parentId", 8, parent_id);
  BSON_APPEND_INT64(&id, "seq", seq);
  bson_append_document_end(parent, &id);
}

bool SameItems(const ItemList& a, size_t a_begin, size_t a_end, const ItemList& b) {
  if (a_end - a_begin != b.size()) return false;
  for (size_t i = 0; i < b.size(); ++i) {
    const bson_value_t* x = a.at(a_begin + i);
    const bson_value_t* y = b.at(i);
    if (x->value_type != y->value_type) return false;
    bson_t one = BSON_INITIALIZER, two = BSON_INITIALIZER;
    bson_append_value(&one, "", 0, x);
    bson_append_value(&two, "", 0, y);
    const bool same = one.len == two.len &&
                      std::memcmp(bson_get_data(&one), bson_get_data(&two), one.len) == 0;
    bson_destroy(&one);
    bson_destroy(&two);
    if (!same) return false;
  }
  return true;
}

}  // namespace

bson::BsonDoc ChunkIdOf(const bson_value_t* parent_id, int64_t seq) {
  bson::BsonDoc out;
  AppendChunkId(out.mutable_get(), "", parent_id, seq);
  return out;
}

StatusWith<std::vector<Chunk>> ReadChunks(storage::Session& session,
                                          storage::ShardedRecordStore& store,
                                          const bson_value_t* parent_id, int64_t from_seq,
                                          bool with_items) {
  std::vector<Chunk> out;
  for (int64_t seq = from_seq;; ++seq) {
    bson::BsonDoc id = ChunkIdOf(parent_id, seq);
    bson_iter_t it;
    bson_iter_init(&it, id.get());
    bson_iter_next(&it);
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> doc, store.FindById(session, bson_iter_value(&it)));
    if (!doc) return out;
    Chunk chunk;
    chunk.seq = seq;
    bson_iter_t items;
    if (bson_iter_init_find(&items, doc->get(), "items") && BSON_ITER_HOLDS_ARRAY(&items)) {
      if (with_items) {
        chunk.items = ItemList::OfArray(&items);
        chunk.item_count = chunk.items.size();
      } else {
        bson_iter_t child;
        if (bson_iter_recurse(&items, &child)) {
          while (bson_iter_next(&child)) ++chunk.item_count;
        }
      }
    }
    chunk.doc = std::move(*doc);
    out.push_back(std::move(chunk));
  }
}

bson::BsonDoc OverflowWriter::ChunkDoc(int64_t seq, const ItemList& items, size_t begin,
                                       size_t end) const {
  bson::BsonDoc doc;
  AppendChunkId(doc.mutable_get(), "_id", parent_id_, seq);
  bson_append_value(doc.mutable_get(), "parentId", 8, parent_id_);
  BSON_APPEND_INT64(doc.mutable_get(), "seq", seq);
  items.AppendArray(doc.mutable_get(), "items", begin, end);
  return doc;
}

Status OverflowWriter::Put(const Chunk* existing, int64_t seq, const ItemList& items,
                           size_t begin, size_t end, bool owned, ChunkDelta* delta) {
  if (existing != nullptr && owned && SameItems(items, begin, end, existing->items)) {
    return Status::OK();
  }
  bson::BsonDoc doc = ChunkDoc(seq, items, begin, end);
  if (existing == nullptr) {
    ++delta->documents;
    return writer_.Insert(session_, doc.get());
  }
  if (!owned) ++delta->documents;
  return writer_.Update(session_, existing->doc.get(), doc.get());
}

Status OverflowWriter::Rewrite(const std::vector<Chunk>& existing, bool owned,
                               const ItemList& items, size_t begin, ChunkDelta* delta) {
  int64_t seq = 0;
  for (size_t at = begin; at < items.size(); at += static_cast<size_t>(chunk_), ++seq) {
    const size_t end = std::min(items.size(), at + static_cast<size_t>(chunk_));
    const Chunk* old = seq < static_cast<int64_t>(existing.size()) ? &existing[seq] : nullptr;
    RETURN_IF_ERROR(Put(old, seq, items, at, end, owned, delta));
  }
  for (size_t i = static_cast<size_t>(seq); i < existing.size(); ++i) {
    RETURN_IF_ERROR(writer_.Remove(session_, existing[i].doc.get()));
    if (owned) --delta->documents;
  }
  return Status::OK();
}

Status OverflowWriter::Append(std::vector<Chunk>& existing, const ItemList& items,
                              ChunkDelta* delta) {
  size_t next = 0;
  int64_t seq = existing.empty() ? 0 : existing.back().seq + 1;
  if (!existing.empty() && existing.back().item_count < static_cast<size_t>(chunk_)) {
    // Fill the last chunk first (chunks stay packed): its items are copied
    // as they are stored, the new ones appended after them.
    const Chunk& last = existing.back();
    next = std::min(static_cast<size_t>(chunk_) - last.item_count, items.size());
    bson::BsonDoc doc;
    bson_t* out = doc.mutable_get();
    AppendChunkId(out, "_id", parent_id_, last.seq);
    bson_append_value(out, "parentId", 8, parent_id_);
    BSON_APPEND_INT64(out, "seq", last.seq);
    bson_t array;
    bson_append_array_begin(out, "items", 5, &array);
    bson_iter_t it, child;
    size_t n = 0;
    char buf[16];
    auto key = [&]() {
      const char* index = nullptr;
      const size_t len = bson_uint32_to_string(static_cast<uint32_t>(n++), &index, buf, sizeof(buf));
      return std::pair<const char*, int>(index, static_cast<int>(len));
    };
    if (bson_iter_init_find(&it, last.doc.get(), "items") && bson_iter_recurse(&it, &child)) {
      while (bson_iter_next(&child)) {
        auto [index, len] = key();
        bson_append_iter(&array, index, len, &child);
      }
    }
    for (size_t i = 0; i < next; ++i) {
      auto [index, len] = key();
      bson_append_value(&array, index, len, items.at(i));
    }
    bson_append_array_end(out, &array);
    RETURN_IF_ERROR(writer_.Update(session_, last.doc.get(), doc.get()));
  }
  for (; next < items.size(); next += static_cast<size_t>(chunk_), ++seq) {
    const size_t end = std::min(items.size(), next + static_cast<size_t>(chunk_));
    RETURN_IF_ERROR(Put(nullptr, seq, items, next, end, true, delta));
  }
  return Status::OK();
}

Status OverflowWriter::Clear(const std::vector<Chunk>& existing, bool owned, ChunkDelta* delta) {
  for (const Chunk& chunk : existing) {
    RETURN_IF_ERROR(writer_.Remove(session_, chunk.doc.get()));
    if (owned) --delta->documents;
  }
  return Status::OK();
}

}  // namespace tigerdoc::patterns::outlier
