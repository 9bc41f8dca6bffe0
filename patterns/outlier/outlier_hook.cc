// OutlierHook: routing of writes between a parent's embedded part and its
// overflow chunks (contract in the header).

#include "patterns/outlier/outlier_hook.h"

#include <map>
#include <set>

#include "engine/bson/shell_string.h"
#include "engine/ops.h"
#include "engine/update/update_driver.h"
#include "engine/write/collection_writer.h"
#include "patterns/common/counts.h"

namespace tigerdoc::patterns::outlier {
namespace {

using engine::WriteEvent;
using engine::WriteKind;
using Layout = OutlierHook::Layout;

// The array at top-level field `path` (nullopt when absent or not an array).
std::optional<ItemList> ArrayAt(const bson_t* doc, const std::string& path) {
  bson_iter_t it;
  if (doc == nullptr || !bson_iter_init_find(&it, doc, path.c_str()) ||
      !BSON_ITER_HOLDS_ARRAY(&it)) {
    return std::nullopt;
  }
  return ItemList::OfArray(&it);
}

size_t ArraySize(const bson_t* doc, const std::string& path) {
  bson_iter_t it, child;
  if (doc == nullptr || !bson_iter_init_find(&it, doc, path.c_str()) ||
      !BSON_ITER_HOLDS_ARRAY(&it) || !bson_iter_recurse(&it, &child)) {
    return 0;
  }
  size_t n = 0;
  while (bson_iter_next(&child)) ++n;
  return n;
}

// Items [start, end) of the array at `path`.
ItemList ItemsFrom(const bson_t* doc, const std::string& path, size_t start) {
  ItemList out;
  bson_iter_t it, child;
  if (doc == nullptr || !bson_iter_init_find(&it, doc, path.c_str()) ||
      !BSON_ITER_HOLDS_ARRAY(&it) || !bson_iter_recurse(&it, &child)) {
    return out;
  }
  for (size_t i = 0; bson_iter_next(&child); ++i) {
    if (i >= start) out.Append(bson_iter_value(&child));
  }
  return out;
}

const bson_value_t* IdValue(const bson_t* doc, bson_iter_t* it) {
  if (!bson_iter_init_find(it, doc, "_id")) return nullptr;
  return bson_iter_value(it);
}

std::string IdText(const bson_t* doc) {
  bson_iter_t it;
  if (!bson_iter_init_find(&it, doc, "_id")) return "?";
  bson::BsonDoc one;
  bson_append_iter(one.mutable_get(), "_id", 3, &it);
  return bson::ToShellString(one.get());
}

}  // namespace

std::string CountersTableName(const std::string& ident) { return ident + "-outlier"; }

OutlierHook::OutlierHook(OutlierConfig config, const catalog::CollectionEntry& coll,
                         catalog::Catalog* catalog)
    : config_(std::move(config)),
      table_(CountersTableName(coll.metadata.ident)),
      ns_(coll.metadata.ns),
      db_(coll.metadata.db),
      catalog_(catalog) {}

bool OutlierHook::IsFlagged(const bson_t* doc) const {
  bson_iter_t it;
  return doc != nullptr && bson_iter_init_find(&it, doc, config_.flag.c_str()) &&
         BSON_ITER_HOLDS_BOOL(&it) && bson_iter_bool(&it);
}

std::string OutlierHook::Where(const bson_t* doc) const {
  return " of the document " + IdText(doc) + " of " + ns_ + ", whose items past " +
         std::to_string(config_.threshold) + " live in " + db_ + "." + config_.overflow +
         " (outlier option)";
}

StatusWith<engine::CollectionWriter*> OutlierHook::Overflow(engine::HookContext& ctx) const {
  return ctx.WriterFor(db_, config_.overflow);
}

StatusWith<std::vector<Chunk>> OutlierHook::Chunks(engine::HookContext& ctx,
                                                   const bson_t* parent, int64_t from_seq,
                                                   bool with_items) const {
  ASSIGN_OR_RETURN(engine::CollectionWriter * writer, Overflow(ctx));
  bson_iter_t it;
  const bson_value_t* id = IdValue(parent, &it);
  if (id == nullptr) return std::vector<Chunk>();
  return ReadChunks(ctx.session(), *writer->collection().store, id, from_seq, with_items);
}

// The parent as stored: `proposed` with the array, flag and count of the
// layout, each field where the document had it (new ones at the end).
std::optional<int64_t> OutlierHook::CountOf(const bson_t* doc) const {
  bson_iter_t it;
  if (doc == nullptr || config_.count_field.empty() ||
      !bson_iter_init_find(&it, doc, config_.count_field.c_str()) || !BSON_ITER_HOLDS_NUMBER(&it)) {
    return std::nullopt;
  }
  return bson_iter_as_int64(&it);
}

bson::BsonDoc OutlierHook::Parent(const bson_t* proposed, const ItemList* embedded,
                                  size_t embedded_end, bool flagged, int64_t count,
                                  const bson_t* array_from) const {
  // The array as `array_from` stores it (copied whole, not item by item).
  bson_iter_t kept;
  const bool keep = array_from != nullptr &&
                    bson_iter_init_find(&kept, array_from, config_.path.c_str());
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  bool saw_flag = false, saw_count = false;
  bson_iter_t it;
  bson_iter_init(&it, proposed);
  while (bson_iter_next(&it)) {
    const std::string_view key = bson_iter_key(&it);
    if (key == config_.path && keep) {
      bson_append_iter(doc, config_.path.c_str(), static_cast<int>(config_.path.size()), &kept);
    } else if (key == config_.path && embedded != nullptr) {
      embedded->AppendArray(doc, config_.path, 0, embedded_end);
    } else if (key == config_.flag) {
      saw_flag = true;
      if (flagged) BSON_APPEND_BOOL(doc, config_.flag.c_str(), true);
    } else if (!config_.count_field.empty() && key == config_.count_field) {
      saw_count = true;
      BSON_APPEND_INT64(doc, config_.count_field.c_str(), count);
    } else {
      bson_append_iter(doc, nullptr, 0, &it);
    }
  }
  if (flagged && !saw_flag) BSON_APPEND_BOOL(doc, config_.flag.c_str(), true);
  if (!config_.count_field.empty() && !saw_count) {
    BSON_APPEND_INT64(doc, config_.count_field.c_str(), count);
  }
  return out;
}

StatusWith<Layout> OutlierHook::LayOut(engine::HookContext& ctx, const bson_t* proposed,
                                       ItemList items, bool has_array, const bson_t* before,
                                       bool owned) const {
  Layout layout;
  const size_t threshold = static_cast<size_t>(config_.threshold);
  const int64_t count = static_cast<int64_t>(items.size());
  if (items.size() <= threshold) {
    layout.parent = Parent(proposed, has_array ? &items : nullptr, items.size(), false, count);
    if (owned) {
      ASSIGN_OR_RETURN(layout.existing, Chunks(ctx, before));
      layout.existing_owned = true;
      layout.chunks = Layout::Chunks::kClear;
    }
    return layout;
  }
  layout.parent = Parent(proposed, &items, threshold, true, count);
  layout.flagged = true;
  // Chunks of an earlier document with this _id (a $out that replaced the
  // collection) are overwritten, never appended to.
  ASSIGN_OR_RETURN(layout.existing, Chunks(ctx, proposed));
  layout.existing_owned = owned;
  layout.chunks = Layout::Chunks::kRewrite;
  layout.overflow_begin = threshold;
  layout.items = std::move(items);
  return layout;
}

StatusWith<Layout> OutlierHook::Plan(engine::HookContext& ctx, const WriteEvent& event,
                                     const bson_t* proposed, bool need_chunks) const {
  const bson_t* before = event.kind == WriteKind::kUpdate ? event.before : nullptr;
  const bool was_flagged = IsFlagged(before);
  if (!was_flagged) {
    // The common case, an unflagged document that stays small: the array
    // is counted and copied whole, never taken apart.
    bson_iter_t it;
    const bool small =
        !bson_iter_init_find(&it, proposed, config_.path.c_str()) || !BSON_ITER_HOLDS_ARRAY(&it) ||
        ArraySize(proposed, config_.path) <= static_cast<size_t>(config_.threshold);
    if (small) {
      Layout layout;
      layout.parent = Parent(proposed, nullptr, 0, false,
                             static_cast<int64_t>(ArraySize(proposed, config_.path)), proposed);
      return layout;
    }
    std::optional<ItemList> array = ArrayAt(proposed, config_.path);
    const bool has_array = array.has_value();
    return LayOut(ctx, proposed, has_array ? std::move(*array) : ItemList(), has_array, before,
                  false);
  }

  ArrayChange change = ArrayChange::kReplace;
  if (event.update != nullptr) {
    ASSIGN_OR_RETURN(change, ClassifyUpdate(event.update, config_.path, Where(before)));
  } else if (event.update_is_pipeline) {
    return Status(ErrorCode::kInvalidOptions,
                  "cannot apply a pipeline update" + Where(before) +
                      ": a pipeline sees only the embedded part; use $push, $addToSet, $pull, "
                      "$pullAll or $set of the whole array");
  }

  auto embedded_before = [&]() { return ArrayAt(before, config_.path).value_or(ItemList()); };
  auto whole_array = [&](ItemList head, const std::vector<Chunk>& chunks) {
    ItemList all = std::move(head);
    for (const Chunk& chunk : chunks) all.AppendRange(chunk.items, 0, chunk.items.size());
    return all;
  };
  switch (change) {
    case ArrayChange::kNone: {
      // The array and chunks stay; only the count must survive the write.
      int64_t count = CountOf(before).value_or(0);
      if (!config_.count_field.empty() && !CountOf(before)) {
        ASSIGN_OR_RETURN(std::vector<Chunk> chunks, Chunks(ctx, before));
        count = static_cast<int64_t>(whole_array(embedded_before(), chunks).size());
      }
      Layout layout;
      layout.parent = Parent(proposed, nullptr, 0, true, count, proposed);
      layout.flagged = true;
      return layout;
    }
    case ArrayChange::kAppend:
    case ArrayChange::kAddToSet: {
      const size_t embedded_size = ArraySize(before, config_.path);
      const std::optional<int64_t> count_before = CountOf(before);
      // The common case, one $push onto a full embedded part with a count:
      // neither the embedded part nor the chunks before the last are read.
      if (change == ArrayChange::kAppend && count_before &&
          embedded_size == static_cast<size_t>(config_.threshold)) {
        ItemList added = ItemsFrom(proposed, config_.path, embedded_size);
        Layout layout;
        layout.parent = Parent(proposed, nullptr, 0, true,
                               *count_before + static_cast<int64_t>(added.size()), before);
        layout.flagged = true;
        layout.chunks = added.empty() ? Layout::Chunks::kKeep : Layout::Chunks::kAppend;
        if (need_chunks && !added.empty()) {
          const int64_t overflow_items = *count_before - static_cast<int64_t>(embedded_size);
          const int64_t last = (overflow_items + config_.chunk - 1) / config_.chunk - 1;
          ASSIGN_OR_RETURN(std::vector<Chunk> tail,
                           Chunks(ctx, before, std::max<int64_t>(last, 0), /*with_items=*/false));
          layout.existing = std::move(tail);
          layout.existing_owned = true;
        }
        layout.items = std::move(added);
        return layout;
      }
      ItemList proposed_embedded = ArrayAt(proposed, config_.path).value_or(ItemList());
      ASSIGN_OR_RETURN(std::vector<Chunk> chunks, Chunks(ctx, before));
      // The update appended to the embedded part: what lies past it is new.
      ItemList added;
      for (size_t i = embedded_size; i < proposed_embedded.size(); ++i) {
        const bson_value_t* item = proposed_embedded.at(i);
        if (change == ArrayChange::kAddToSet) {
          bool in_overflow = false;
          for (const Chunk& chunk : chunks) in_overflow = in_overflow || chunk.items.Contains(item);
          if (in_overflow) continue;
        }
        added.Append(item);
      }
      if (embedded_size == static_cast<size_t>(config_.threshold)) {
        size_t overflow_items = 0;
        for (const Chunk& chunk : chunks) overflow_items += chunk.items.size();
        Layout layout;
        layout.parent = Parent(proposed, nullptr, 0, true,
                               static_cast<int64_t>(embedded_size + overflow_items + added.size()),
                               before);
        layout.flagged = true;
        layout.existing = std::move(chunks);
        layout.existing_owned = true;
        layout.chunks = added.empty() ? Layout::Chunks::kKeep : Layout::Chunks::kAppend;
        layout.items = std::move(added);
        return layout;
      }
      // The threshold changed (collMod) since the parent was laid out.
      ItemList all = whole_array(embedded_before(), chunks);
      all.AppendRange(added, 0, added.size());
      return LayOut(ctx, proposed, std::move(all), true, before, true);
    }
    case ArrayChange::kPull: {
      ASSIGN_OR_RETURN(std::vector<Chunk> chunks, Chunks(ctx, before));
      ASSIGN_OR_RETURN(update::UpdateDriver pull,
                       update::UpdateDriver::Parse(PullForChunk(event.update, config_.path).get()));
      ItemList all = ArrayAt(proposed, config_.path).value_or(ItemList());
      for (const Chunk& chunk : chunks) {
        ASSIGN_OR_RETURN(update::ApplyResult pulled, pull.Apply(chunk.doc.get(), false));
        ItemList left = ArrayAt(pulled.doc.get(), "items").value_or(ItemList());
        all.AppendRange(left, 0, left.size());
      }
      return LayOut(ctx, proposed, std::move(all), true, before, true);
    }
    case ArrayChange::kReplace: {
      std::optional<ItemList> array = ArrayAt(proposed, config_.path);
      const bool has_array = array.has_value();
      return LayOut(ctx, proposed, has_array ? std::move(*array) : ItemList(), has_array, before,
                    true);
    }
  }
  return Status(ErrorCode::kInternalError, "unreachable outlier change");
}

Status OutlierHook::BeforeStore(engine::HookContext& ctx, const WriteEvent& event,
                                bson::BsonDoc* reshaped) {
  ASSIGN_OR_RETURN(Layout layout, Plan(ctx, event, event.after, /*need_chunks=*/false));
  if (layout.parent.bytes() != std::string_view(reinterpret_cast<const char*>(bson_get_data(event.after)),
                                                event.after->len)) {
    *reshaped = std::move(layout.parent);
  }
  return Status::OK();
}

Status OutlierHook::AfterStore(engine::HookContext& ctx, const WriteEvent& event) {
  const bson_t* proposed = event.proposed != nullptr ? event.proposed : event.after;
  ASSIGN_OR_RETURN(Layout layout, Plan(ctx, event, proposed, /*need_chunks=*/true));
  const bool was_flagged = event.kind == WriteKind::kUpdate && IsFlagged(event.before);
  ChunkDelta delta;
  if (layout.chunks != Layout::Chunks::kKeep) {
    ASSIGN_OR_RETURN(engine::CollectionWriter * writer, Overflow(ctx));
    bson_iter_t it;
    const bson_value_t* id = IdValue(event.after, &it);
    if (id == nullptr) return Status(ErrorCode::kInternalError, "outlier parent without _id");
    OverflowWriter chunks(ctx.session(), *writer, id, config_.chunk);
    switch (layout.chunks) {
      case Layout::Chunks::kKeep: break;
      case Layout::Chunks::kAppend:
        RETURN_IF_ERROR(chunks.Append(layout.existing, layout.items, &delta));
        break;
      case Layout::Chunks::kRewrite:
        RETURN_IF_ERROR(chunks.Rewrite(layout.existing, layout.existing_owned, layout.items,
                                       layout.overflow_begin, &delta));
        break;
      case Layout::Chunks::kClear:
        RETURN_IF_ERROR(chunks.Clear(layout.existing, layout.existing_owned, &delta));
        break;
    }
  }
  const int64_t flagged_delta = (layout.flagged ? 1 : 0) - (was_flagged ? 1 : 0);
  return AddCounts(ctx.session(), flagged_delta, delta.documents);
}

Status OutlierHook::AfterRemove(engine::HookContext& ctx, const WriteEvent& event) {
  if (!IsFlagged(event.before)) return Status::OK();
  ASSIGN_OR_RETURN(std::vector<Chunk> existing, Chunks(ctx, event.before));
  ASSIGN_OR_RETURN(engine::CollectionWriter * writer, Overflow(ctx));
  bson_iter_t it;
  const bson_value_t* id = IdValue(event.before, &it);
  ChunkDelta delta;
  OverflowWriter chunks(ctx.session(), *writer, id, config_.chunk);
  RETURN_IF_ERROR(chunks.Clear(existing, true, &delta));
  return AddCounts(ctx.session(), -1, delta.documents);
}

StatusWith<engine::PatternHook::UpdateEffect> OutlierHook::EffectOfUpdate(
    engine::HookContext& ctx, const WriteEvent& event, bool modified) {
  if (event.update == nullptr || !IsFlagged(event.before)) return UpdateEffect::kAsComputed;
  ASSIGN_OR_RETURN(ArrayChange change,
                   ClassifyUpdate(event.update, config_.path, Where(event.before)));
  if (change == ArrayChange::kPull && !modified) {
    // The embedded part had nothing to pull; the chunks may.
    ASSIGN_OR_RETURN(std::vector<Chunk> chunks, Chunks(ctx, event.before));
    ASSIGN_OR_RETURN(update::UpdateDriver pull,
                     update::UpdateDriver::Parse(PullForChunk(event.update, config_.path).get()));
    for (const Chunk& chunk : chunks) {
      ASSIGN_OR_RETURN(update::ApplyResult pulled, pull.Apply(chunk.doc.get(), false));
      if (pulled.modified) return UpdateEffect::kChanges;
    }
    return UpdateEffect::kNoChange;
  }
  if (change == ArrayChange::kAddToSet && modified) {
    // Items the embedded part lacked may all be in the chunks; then only
    // other operators of the update can have changed something.
    ASSIGN_OR_RETURN(Layout layout, Plan(ctx, event, event.after, /*need_chunks=*/false));
    if (layout.chunks == Layout::Chunks::kKeep &&
        layout.parent.bytes() == std::string_view(reinterpret_cast<const char*>(
                                                      bson_get_data(event.before)),
                                                  event.before->len)) {
      return UpdateEffect::kNoChange;
    }
  }
  return UpdateEffect::kAsComputed;
}

Status OutlierHook::AddCounts(storage::Session& session, int64_t flagged, int64_t chunks) const {
  const char stripe = static_cast<char>(ThreadStripe());
  if (flagged != 0) {
    RETURN_IF_ERROR(AddToCountsRow(session, table_, std::string("f") + stripe, Counts{flagged, 0}));
  }
  if (chunks != 0) {
    RETURN_IF_ERROR(AddToCountsRow(session, table_, std::string("o") + stripe, Counts{chunks, 0}));
  }
  return Status::OK();
}

namespace {

// Sums the striped rows of the counters table: 'f' and 'o'.
// REQUIRES: in a transaction (one snapshot).
StatusWith<OutlierCounts> ReadCounters(storage::Session& session, const std::string& table) {
  OutlierCounts out;
  ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table, "", ""));
  Status status;
  while (cursor.Next(&status)) {
    std::string_view key = cursor.key();
    StatusWith<Counts> counts = DecodeCounts(cursor.value());
    if (!counts.ok()) continue;
    if (!key.empty() && key[0] == 'f') out.flagged += counts.value().count;
    if (!key.empty() && key[0] == 'o') out.chunks += counts.value().count;
  }
  RETURN_IF_ERROR(status);
  return out;
}

}  // namespace

StatusWith<int64_t> FlaggedDocuments(storage::Session& session, const std::string& ident) {
  RETURN_IF_ERROR(session.Begin());
  StatusWith<OutlierCounts> read = ReadCounters(session, CountersTableName(ident));
  session.Rollback();
  RETURN_IF_ERROR(read.status());
  return read.value().flagged;
}

Status OutlierHook::AppendStats(storage::Session& session, const catalog::CollectionEntry&,
                                bson_t* out) {
  RETURN_IF_ERROR(session.Begin());
  StatusWith<OutlierCounts> read = ReadCounters(session, table_);
  session.Rollback();
  ASSIGN_OR_RETURN(OutlierCounts counts, std::move(read));
  BSON_APPEND_UTF8(out, "path", config_.path.c_str());
  BSON_APPEND_INT64(out, "threshold", config_.threshold);
  BSON_APPEND_UTF8(out, "overflow", config_.overflow.c_str());
  BSON_APPEND_INT64(out, "chunk", config_.chunk);
  BSON_APPEND_INT64(out, "flaggedDocuments", counts.flagged);
  BSON_APPEND_INT64(out, "overflowDocuments", counts.chunks);
  return Status::OK();
}

void OutlierHook::AppendExplain(const catalog::CollectionEntry&, bson_t* out) const {
  BSON_APPEND_UTF8(out, "path", config_.path.c_str());
  BSON_APPEND_INT64(out, "threshold", config_.threshold);
  BSON_APPEND_UTF8(out, "overflow", config_.overflow.c_str());
  BSON_APPEND_UTF8(out, "flag", config_.flag.c_str());
}

Status OutlierHook::Validate(storage::Session& session, const catalog::CollectionEntry& coll,
                             std::vector<std::string>* problems) {
  std::shared_ptr<catalog::CollectionEntry> overflow =
      catalog_ != nullptr ? catalog_->Lookup(engine::Namespace(db_, config_.overflow)) : nullptr;
  OutlierCounts found;
  RETURN_IF_ERROR(session.Begin());
  StatusWith<OutlierCounts> read = ReadCounters(session, table_);
  if (!read.ok()) {
    session.Rollback();
    return read.status();
  }
  const OutlierCounts kept = read.value();
  Status walked = coll.store->ForEachDocument(session, [&](int, const bson_t* doc) -> Status {
    const bool flagged = IsFlagged(doc);
    const size_t embedded = ArrayAt(doc, config_.path).value_or(ItemList()).size();
    if (embedded > static_cast<size_t>(config_.threshold) && flagged) {
      problems->push_back("outlier: " + IdText(doc) + " embeds " + std::to_string(embedded) +
                          " items of '" + config_.path + "', over threshold " +
                          std::to_string(config_.threshold));
    }
    if (!flagged) return Status::OK();
    ++found.flagged;
    bson_iter_t it;
    const bson_value_t* id = IdValue(doc, &it);
    if (overflow == nullptr || id == nullptr) {
      problems->push_back("outlier: " + IdText(doc) + " is flagged but " + db_ + "." +
                          config_.overflow + " does not exist");
      return Status::OK();
    }
    ASSIGN_OR_RETURN(std::vector<Chunk> chunks, ReadChunks(session, *overflow->store, id));
    found.chunks += static_cast<int64_t>(chunks.size());
    size_t total = embedded;
    for (size_t i = 0; i < chunks.size(); ++i) {
      total += chunks[i].items.size();
      if (i + 1 < chunks.size() && chunks[i].items.size() != static_cast<size_t>(config_.chunk)) {
        problems->push_back("outlier: chunk " + std::to_string(i) + " of " + IdText(doc) +
                            " holds " + std::to_string(chunks[i].items.size()) +
                            " items, not chunk " + std::to_string(config_.chunk));
      }
    }
    if (chunks.empty()) {
      problems->push_back("outlier: " + IdText(doc) + " is flagged but has no overflow documents");
    }
    bson_iter_t count;
    if (!config_.count_field.empty() &&
        (!bson_iter_init_find(&count, doc, config_.count_field.c_str()) ||
         !BSON_ITER_HOLDS_NUMBER(&count) ||
         bson_iter_as_int64(&count) != static_cast<int64_t>(total))) {
      problems->push_back("outlier: " + config_.count_field + " of " + IdText(doc) +
                          " is not its " + std::to_string(total) + " items");
    }
    return Status::OK();
  });
  // Overflow documents no flagged parent owns (a parent dropped by $out,
  // chunks written by hand): listed, at most a few.
  std::set<std::string> owned_ids;  // shell strings of the parents' chunk _ids
  int64_t orphans = 0;
  std::string first_orphan;
  if (walked.ok() && overflow != nullptr) {
    walked = coll.store->ForEachDocument(session, [&](int, const bson_t* doc) -> Status {
      if (!IsFlagged(doc)) return Status::OK();
      bson_iter_t it;
      const bson_value_t* id = IdValue(doc, &it);
      if (id == nullptr) return Status::OK();
      ASSIGN_OR_RETURN(std::vector<Chunk> chunks,
                       ReadChunks(session, *overflow->store, id, 0, /*with_items=*/false));
      for (const Chunk& chunk : chunks) owned_ids.insert(IdText(chunk.doc.get()));
      return Status::OK();
    });
    if (walked.ok()) {
      walked = overflow->store->ForEachDocument(session, [&](int, const bson_t* doc) -> Status {
        if (owned_ids.count(IdText(doc)) == 0 && ++orphans == 1) first_orphan = IdText(doc);
        return Status::OK();
      });
    }
  }
  session.Rollback();
  RETURN_IF_ERROR(walked);
  if (orphans > 0) {
    problems->push_back("outlier: " + std::to_string(orphans) + " documents of " + db_ + "." +
                        config_.overflow + " belong to no flagged parent (first: " + first_orphan +
                        ")");
  }
  if (found.flagged != kept.flagged) {
    problems->push_back("outlier: collStats counts " + std::to_string(kept.flagged) +
                        " flagged documents, the collection has " + std::to_string(found.flagged));
  }
  if (found.chunks != kept.chunks) {
    problems->push_back("outlier: collStats counts " + std::to_string(kept.chunks) +
                        " overflow documents, the flagged documents have " +
                        std::to_string(found.chunks));
  }
  return Status::OK();
}

}  // namespace tigerdoc::patterns::outlier
