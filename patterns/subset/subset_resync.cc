#include "patterns/subset/subset_resync.h"

#include "engine/query/plan_executor.h"
#include "engine/write/collection_writer.h"
#include "engine/write/write_unit.h"
#include "patterns/subset/subset_sync.h"

namespace tigerdoc::patterns::subset {

Status ResyncParents(catalog::Catalog& catalog, storage::StorageEngine& storage,
                     std::shared_ptr<catalog::CollectionEntry> child, const SubsetHook& hook,
                     const bson_t* filter, int64_t batch_size,
                     const std::function<Status(const ResyncProgress&)>& on_batch,
                     ResyncProgress* progress) {
  *progress = ResyncProgress();
  std::shared_ptr<catalog::CollectionEntry> parent = catalog.Lookup(hook.parent_ns());
  if (parent == nullptr) return Status::OK();
  const SubsetConfig& config = hook.config();
  query::FindSpec spec;
  if (filter != nullptr) spec.filter = bson::BsonDoc::CopyOf(filter);
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(parent, std::move(spec)));
  storage::Session session = storage.NewSession();
  bool exhausted = false;
  while (!exhausted) {
    std::vector<bson::BsonDoc> batch;
    RETURN_IF_ERROR(exec->FillBatch(session, batch_size, 16 * 1024 * 1024, &batch, &exhausted));
    if (batch.empty()) break;
    int64_t updated = 0;
    engine::CollectionWriter writer(catalog, *parent);
    writer.SetOrigin(hook.origin());
    RETURN_IF_ERROR(engine::RunWriteUnit(session, [&]() -> Status {
      updated = 0;
      for (const bson::BsonDoc& doc : batch) {
        bson_iter_t root, it;
        if (!bson_iter_init(&root, doc.get()) ||
            !bson_iter_find_descendant(&root, config.foreign_field().c_str(), &it)) {
          continue;  // no key: no children can name it
        }
        ParentKey key = KeyFor(&it);
        bson_iter_t value_it;
        const bson_value_t* value = key.get(&value_it);
        KeyRow row;
        ASSIGN_OR_RETURN(row.counters, CountChildren(session, child, config, value));
        ParentChange change;
        change.mode = ParentChange::Mode::kRebuild;
        ASSIGN_OR_RETURN(change.best_children, BestChildren(session, child, config, value));
        for (const bson::BsonDoc& best : *change.best_children) {
          row.top.push_back(config.SortKeyOf(best.get()));
        }
        RETURN_IF_ERROR(WriteRow(session, hook.table(), key.row, row));
        RETURN_IF_ERROR(
            RefreshParents(session, child, parent, writer, config, value, row, std::move(change)));
        ++updated;
      }
      return Status::OK();
    }));
    progress->parents_matched += static_cast<int64_t>(batch.size());
    progress->parents_updated += updated;
    progress->batches += 1;
    if (on_batch) RETURN_IF_ERROR(on_batch(*progress));
  }
  return Status::OK();
}

}  // namespace tigerdoc::patterns::subset
