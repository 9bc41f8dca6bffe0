#include "patterns/subset/subset_hook.h"

#include <algorithm>
#include <map>
#include <optional>

#include "engine/bson/compare.h"
#include "engine/bson/shell_string.h"
#include "engine/write/collection_writer.h"
#include "patterns/subset/subset_sync.h"

namespace tigerdoc::patterns::subset {
namespace {

std::string Shown(const std::string& value_bytes) {
  if (value_bytes.empty()) return "missing";
  bson::BsonDoc doc = bson::BsonDoc::CopyOf(reinterpret_cast<const uint8_t*>(value_bytes.data()),
                                            value_bytes.size());
  bson_iter_t it;
  bson_iter_init(&it, doc.get());
  bson_iter_next(&it);
  return bson::ToShellString(&it);
}

}  // namespace

SubsetHook::SubsetHook(SubsetConfig config, const catalog::CollectionEntry& child)
    : config_(std::move(config)),
      table_(StateTableName(child.metadata.ident)),
      child_db_(child.metadata.db),
      parent_ns_(child.metadata.db + "." + config_.parent()) {
  auto protection = std::make_shared<Protection>();
  protection->origin = std::string(kPatternName) + " " + child.metadata.ns;
  protection->child_ns = child.metadata.ns;
  protection->paths = config_.OwnedPaths();
  protection_ = std::move(protection);
}

Status SubsetHook::AfterStore(engine::HookContext& ctx, const engine::WriteEvent& event) {
  if (event.before != nullptr && !config_.ChildChangeMatters(event.before, event.after)) {
    return Status::OK();
  }
  return Change(ctx, event.before, event.after);
}

Status SubsetHook::AfterRemove(engine::HookContext& ctx, const engine::WriteEvent& event) {
  return Change(ctx, event.before, nullptr);
}

namespace {

std::vector<bson::BsonDoc> CopyAll(const std::vector<bson::BsonDoc>& docs) {
  std::vector<bson::BsonDoc> out;
  out.reserve(docs.size());
  for (const bson::BsonDoc& doc : docs) out.push_back(doc.Copy());
  return out;
}

}  // namespace

Status SubsetHook::Change(engine::HookContext& ctx, const bson_t* before, const bson_t* after) {
  const catalog::CollectionEntry& child = ctx.collection();
  std::optional<ParentKey> old_key, new_key;
  if (before != nullptr) {
    ASSIGN_OR_RETURN(old_key, KeyOf(config_, child.metadata.ns, before));
  }
  if (after != nullptr) {
    ASSIGN_OR_RETURN(new_key, KeyOf(config_, child.metadata.ns, after));
  }
  if (!old_key && !new_key) return Status::OK();
  storage::Session& session = ctx.session();
  std::shared_ptr<catalog::CollectionEntry> parent = ctx.Lookup(child_db_, config_.parent());
  // The child's own entry, for index reads (only when the best change).
  std::shared_ptr<catalog::CollectionEntry> self;
  auto self_entry = [&]() -> StatusWith<std::shared_ptr<catalog::CollectionEntry>> {
    if (self == nullptr) self = ctx.Lookup(child.metadata.db, child.metadata.name);
    if (self == nullptr) {
      return Status(ErrorCode::kNamespaceNotFound, child.metadata.ns + " was dropped");
    }
    return self;
  };
  const bson::BsonDoc before_key = before ? config_.SortKeyOf(before) : bson::BsonDoc();
  const bson::BsonDoc after_key = after ? config_.SortKeyOf(after) : bson::BsonDoc();
  const auto no_show = config_.counters().empty() ? ParentChange::Mode::kNone
                                                  : ParentChange::Mode::kCounters;

  // One key's row: `removed` leaves it, `added` joins it (either may be
  // null). The row is written even when unchanged, so that writers of one
  // key conflict.
  auto update_key = [&](const ParentKey& key, const bson_t* removed,
                        const bson_t* added) -> Status {
    ASSIGN_OR_RETURN(KeyRow row, ReadRow(session, table_, key.row, config_));
    ParentChange change;
    change.old_top = CopyAll(row.top);
    if (removed != nullptr) row.counters.Apply(config_, removed, -1);
    if (added != nullptr) row.counters.Apply(config_, added, 1);
    bson_iter_t key_it;
    const bson_value_t* value = key.get(&key_it);
    if (removed != nullptr && row.Has(config_, before_key.get())) {
      // A member left or changed: the best are read again (this write's
      // own change included).
      ASSIGN_OR_RETURN(std::shared_ptr<catalog::CollectionEntry> entry, self_entry());
      ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> best, BestChildren(session, entry, config_, value));
      row.top.clear();
      for (const bson::BsonDoc& doc : best) row.top.push_back(config_.SortKeyOf(doc.get()));
      change.mode = ParentChange::Mode::kRebuild;
      change.best_children = std::move(best);
    } else if (added != nullptr &&
               row.PositionOf(config_, after_key.get()) < static_cast<size_t>(config_.limit())) {
      change.mode = ParentChange::Mode::kInsertAt;
      change.position = row.PositionOf(config_, after_key.get());
      ASSIGN_OR_RETURN(change.entry, config_.Project(added));
      row.top.insert(row.top.begin() + static_cast<std::ptrdiff_t>(change.position), after_key.Copy());
      if (row.top.size() > static_cast<size_t>(config_.limit())) row.top.pop_back();
    } else {
      change.mode = no_show;
    }
    RETURN_IF_ERROR(WriteRow(session, table_, key.row, row));
    if (parent == nullptr) return Status::OK();
    ASSIGN_OR_RETURN(std::shared_ptr<catalog::CollectionEntry> entry, self_entry());
    ASSIGN_OR_RETURN(engine::CollectionWriter * writer, ctx.WriterFor(child_db_, config_.parent()));
    writer->SetOrigin(protection_->origin);
    Status status =
        RefreshParents(session, entry, parent, *writer, config_, value, row, std::move(change));
    writer->SetOrigin("");
    return status;
  };
  if (old_key && new_key && old_key->row == new_key->row) return update_key(*old_key, before, after);
  if (old_key) RETURN_IF_ERROR(update_key(*old_key, before, nullptr));
  if (new_key) RETURN_IF_ERROR(update_key(*new_key, nullptr, after));
  return Status::OK();
}

Status SubsetHook::AppendStats(storage::Session& session, const catalog::CollectionEntry&,
                               bson_t* out) {
  BSON_APPEND_UTF8(out, "parent", parent_ns_.c_str());
  BSON_APPEND_UTF8(out, "as", config_.as().c_str());
  BSON_APPEND_INT32(out, "limit", config_.limit());
  RETURN_IF_ERROR(session.Begin());
  int64_t keys = 0;
  auto count = [&]() -> Status {
    ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table_, "p", "q"));
    Status status;
    while (cursor.Next(&status)) ++keys;
    return status;
  };
  Status status = count();
  session.Rollback();
  RETURN_IF_ERROR(status);
  BSON_APPEND_INT64(out, "parentKeys", keys);
  return Status::OK();
}

void SubsetHook::AppendExplain(const catalog::CollectionEntry&, bson_t* out) const {
  BSON_APPEND_UTF8(out, "parent", parent_ns_.c_str());
  BSON_APPEND_UTF8(out, "as", config_.as().c_str());
}

Status SubsetHook::ValidateWith(storage::Session& session, catalog::Catalog& catalog,
                                const catalog::CollectionEntry& coll,
                                std::vector<std::string>* problems) {
  const size_t n = config_.counters().size();
  struct Group {
    CounterState state;
    std::vector<bson::BsonDoc> children;
    bson::BsonDoc key;  // {"v": <parent key>}
  };
  RETURN_IF_ERROR(session.Begin());
  auto body = [&]() -> Status {
    // Recomputed from the children alone (no index, no counter row).
    std::map<std::string, Group> groups;
    RETURN_IF_ERROR(coll.store->ForEachDocument(session, [&](int, const bson_t* doc) -> Status {
      StatusWith<std::optional<ParentKey>> key = KeyOf(config_, coll.metadata.ns, doc);
      if (!key.ok()) {
        problems->push_back(key.status().reason());
        return Status::OK();
      }
      if (!key.value()) return Status::OK();
      auto [it, inserted] =
          groups.try_emplace(key.value()->row, Group{CounterState(n), {}, key.value()->value.Copy()});
      it->second.state.Apply(config_, doc, 1);
      it->second.children.push_back(bson::BsonDoc::CopyOf(doc));
      return Status::OK();
    }));
    auto by_order = [&](const bson::BsonDoc& a, const bson::BsonDoc& b) {
      return config_.CompareSortKeys(config_.SortKeyOf(a.get()).get(),
                                     config_.SortKeyOf(b.get()).get()) < 0;
    };
    for (auto& [row, group] : groups) std::sort(group.children.begin(), group.children.end(), by_order);
    std::map<std::string, KeyRow> kept;
    {
      ASSIGN_OR_RETURN(storage::Cursor cursor, session.Scan(table_, "p", "q"));
      Status status;
      while (cursor.Next(&status)) kept.emplace(std::string(cursor.key()), KeyRow());
      RETURN_IF_ERROR(status);
    }
    for (auto& [row, key_row] : kept) {
      ASSIGN_OR_RETURN(key_row, ReadRow(session, table_, row, config_));
    }
    for (const auto& [row, group] : groups) {
      auto it = kept.find(row);
      bool same = it != kept.end() && it->second.counters == group.state;
      const size_t best = std::min(group.children.size(), static_cast<size_t>(config_.limit()));
      same = same && it->second.top.size() == best;
      for (size_t i = 0; same && i < best; ++i) {
        same = it->second.top[i].bytes() == config_.SortKeyOf(group.children[i].get()).bytes();
      }
      if (!same) {
        problems->push_back("the subset row of " + coll.metadata.ns + " for parent key " +
                            bson::ToShellString(group.key.get()) +
                            " differs from its children (counters or best children); rebuild it "
                            "with resyncSubset");
      }
    }
    for (const auto& [row, key_row] : kept) {
      if (groups.count(row) == 0) {
        problems->push_back("the subset rows of " + coll.metadata.ns +
                            " keep a parent key no child has");
      }
    }
    std::shared_ptr<catalog::CollectionEntry> parent = catalog.Lookup(parent_ns_);
    if (parent == nullptr) return Status::OK();
    const std::vector<std::string> paths = config_.OwnedPaths();
    return parent->store->ForEachDocument(session, [&](int, const bson_t* doc) -> Status {
      bson_iter_t root, it;
      if (!bson_iter_init(&root, doc) ||
          !bson_iter_find_descendant(&root, config_.foreign_field().c_str(), &it)) {
        return Status::OK();
      }
      ParentKey key = KeyFor(&it);
      auto group = groups.find(key.row);
      bool any_path = false;
      for (const std::string& path : paths) any_path = any_path || !ValueBytes(doc, path).empty();
      if (group == groups.end() && !any_path) return Status::OK();  // never had a child
      std::vector<bson::BsonDoc> top;
      CounterState state(n);
      if (group != groups.end()) {
        const std::vector<bson::BsonDoc>& children = group->second.children;
        for (size_t i = 0; i < children.size() && i < static_cast<size_t>(config_.limit()); ++i) {
          ASSIGN_OR_RETURN(bson::BsonDoc projected, config_.Project(children[i].get()));
          top.push_back(std::move(projected));
        }
        state = group->second.state;
      }
      bson::BsonDoc update = ParentUpdate(config_, &top, state);
      bson_iter_t set_it;
      bson_iter_init_find(&set_it, update.get(), "$set");
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&set_it, &len, &data);
      bson::BsonDoc expected = bson::BsonDoc::CopyOf(data, len);
      for (const std::string& path : paths) {
        bson_iter_t e;
        bson::BsonDoc one;
        if (bson_iter_init_find(&e, expected.get(), path.c_str())) {
          bson_append_iter(one.mutable_get(), "v", 1, &e);
        }
        const std::string want(one.bytes());
        const std::string have = ValueBytes(doc, path);
        if (want == have) continue;
        problems->push_back("parent " + bson::ToShellString(key.value.get()) + " of " + parent_ns_ +
                            ": '" + path + "' is " + Shown(have) + " but the children in " +
                            coll.metadata.ns + " give " + Shown(want));
      }
      return Status::OK();
    });
  };
  Status status = body();
  session.Rollback();
  return status;
}

bool ParentGuard::any_alive() const {
  for (const auto& weak : protections_) {
    if (!weak.expired()) return true;
  }
  return false;
}

Status ParentGuard::BeforeStore(engine::HookContext& ctx, const engine::WriteEvent& event,
                                bson::BsonDoc*) {
  // Every subset's own writes pass: a $out into the child writes through
  // a temporary collection with the same option (its hook, its origin).
  const std::string prefix = std::string(kPatternName) + " ";
  if (event.origin.substr(0, prefix.size()) == prefix) return Status::OK();
  for (const auto& weak : protections_) {
    std::shared_ptr<const Protection> protection = weak.lock();
    if (protection == nullptr) continue;
    for (const std::string& path : protection->paths) {
      const std::string before = event.before ? ValueBytes(event.before, path) : std::string();
      if (before == ValueBytes(event.after, path)) continue;
      const std::string owner = "the subset option of " + protection->child_ns;
      if (event.kind == engine::WriteKind::kInsert && !event.from_update) {
        return Status(ErrorCode::kImmutableField,
                      "A document inserted into " + ctx.collection().metadata.ns + " sets '" + path +
                          "', a field " + owner + " keeps; insert it without '" + path +
                          "' (the subset fills it from " + protection->child_ns + ")");
      }
      return Status(ErrorCode::kImmutableField,
                    "Performing an update on the path '" + path + "' would modify a field " + owner +
                        " keeps (it follows the documents of " + protection->child_ns +
                        "); change those documents instead, or rebuild it with resyncSubset");
    }
  }
  return Status::OK();
}

}  // namespace tigerdoc::patterns::subset
