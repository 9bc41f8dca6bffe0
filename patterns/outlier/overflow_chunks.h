#pragma once
// OverflowChunks: the overflow documents of one parent in the overflow
// collection, read and written inside the parent write's transaction.
//
// Format (a compatibility promise, patterns/README.md):
//   { _id: {parentId: <parent _id>, seq: <n>}, parentId: <parent _id>, seq: <n>,
//     items: [...] }
// seq runs 0, 1, 2, ... without gaps; every chunk but the last holds exactly
// `chunk` items (writes keep them packed), so the whole array is the
// parent's embedded part followed by the chunks' items in seq order. The
// _id makes each chunk a point read; the enumeration stops at the first
// missing seq.
//
// Thread-safety: one instance per write, on the write's session.

#include <bson/bson.h>

#include <cstdint>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/storage/sharded_record_store.h"
#include "engine/storage/storage_engine.h"
#include "patterns/outlier/item_list.h"

namespace tigerdoc::engine {
class CollectionWriter;
}

namespace tigerdoc::patterns::outlier {

struct Chunk {
  int64_t seq = 0;
  bson::BsonDoc doc;
  ItemList items;         // empty when read without items
  size_t item_count = 0;  // always set
};

// The chunk _id {parentId, seq} as a one-field document {"": <_id>}.
bson::BsonDoc ChunkIdOf(const bson_value_t* parent_id, int64_t seq);

// The chunks of `parent_id` from seq `from_seq` to the last, in seq order
// (reads only).
// `with_items`: parse the items (else only item_count is set).
StatusWith<std::vector<Chunk>> ReadChunks(storage::Session& session,
                                          storage::ShardedRecordStore& store,
                                          const bson_value_t* parent_id, int64_t from_seq = 0,
                                          bool with_items = true);

// What a change did to the overflow collection (for the counters).
struct ChunkDelta {
  int64_t documents = 0;
};

class OverflowWriter {
 public:
  // `owned`: `existing` chunks belong to the parent's current overflow (else
  // they are leftovers of an earlier parent with the same _id, which the
  // counters never counted).
  OverflowWriter(storage::Session& session, engine::CollectionWriter& writer,
                 const bson_value_t* parent_id, int64_t chunk)
      : session_(session), writer_(writer), parent_id_(parent_id), chunk_(chunk) {}

  // Makes the chunks hold exactly `items` [begin, end), packed from seq 0,
  // writing only chunks whose items changed.
  Status Rewrite(const std::vector<Chunk>& existing, bool owned, const ItemList& items,
                 size_t begin, ChunkDelta* delta);
  // Appends `items` after the last chunk's items (`existing` holds at
  // least the last chunk, or nothing when there is none).
  Status Append(std::vector<Chunk>& existing, const ItemList& items, ChunkDelta* delta);
  // Removes every chunk.
  Status Clear(const std::vector<Chunk>& existing, bool owned, ChunkDelta* delta);

 private:
  bson::BsonDoc ChunkDoc(int64_t seq, const ItemList& items, size_t begin, size_t end) const;
  Status Put(const Chunk* existing, int64_t seq, const ItemList& items, size_t begin,
             size_t end, bool owned, ChunkDelta* delta);

  storage::Session& session_;
  engine::CollectionWriter& writer_;
  const bson_value_t* parent_id_;
  int64_t chunk_;
};

}  // namespace tigerdoc::patterns::outlier
