// convertToCapped: copy into a new capped collection, then rename it over
// the source (MongoDB's cloneCollectionAsCapped + rename). The copy is
// created with the `temp` option, so a crash before the rename leaves
// nothing behind (the catalog drops temp collections at start-up), and the
// rename replaces the source in one catalog transaction.

#include <shared_mutex>
#include <string>
#include <vector>

#include "engine/catalog/capped_options.h"
#include "engine/catalog/options_merge.h"
#include "engine/engine.h"
#include "engine/write/collection_writer.h"
#include "engine/write/write_unit.h"

namespace tigerdoc::engine {
namespace {

constexpr size_t kCopyBatchDocuments = 1000;

}  // namespace

Status Engine::ModifyCappedLimits(std::string_view db, std::string_view name,
                                  const std::optional<int64_t>& size, const std::optional<int64_t>& max) {
  std::shared_ptr<catalog::CollectionEntry> entry = catalog_->Lookup(Namespace(db, name));
  if (entry == nullptr) return Status(ErrorCode::kNamespaceNotFound, "ns does not exist");
  // Exclusive: writers build their limits from the options when they start,
  // so none runs across the change; the next insert evicts past the new
  // limits (as MongoDB: nothing is removed by collMod itself).
  std::unique_lock<std::shared_mutex> lock(entry->write_mutex());
  if (!entry->store->capped()) return Status(ErrorCode::kInvalidOptions, "Collection must be capped.");
  bson::BsonDoc changes;
  if (size) catalog::AppendNumber(changes.mutable_get(), "size", *size);
  if (max) catalog::AppendNumber(changes.mutable_get(), "max", *max);
  return catalog_->ReplaceOptions(*entry, catalog::MergeOptions(entry->metadata.options.get(), changes.get()));
}

Status Engine::ConvertToCapped(std::string_view db, std::string_view name, int64_t size) {
  const std::string ns = Namespace(db, name);
  if (catalog_->LookupView(ns) != nullptr) {
    return Status(ErrorCode::kCommandNotSupportedOnView,
                  "Namespace " + ns + " is a view, not a collection");
  }
  std::shared_ptr<catalog::CollectionEntry> source = catalog_->Lookup(ns);
  if (source == nullptr) {
    return Status(ErrorCode::kNamespaceNotFound, "source collection " + ns + " does not exist");
  }
  catalog::CreateCollectionRequest request;
  request.db = std::string(db);
  request.name = "tmp.convertToCapped." + std::string(name);
  request.num_shards = 1;
  BSON_APPEND_BOOL(request.options.mutable_get(), "capped", true);
  catalog::AppendNumber(request.options.mutable_get(), "size", size);
  BSON_APPEND_BOOL(request.options.mutable_get(), catalog::kTempOption, true);
  // A copy left by an earlier failed conversion goes first.
  Status dropped = catalog_->DropCollection(Namespace(db, request.name));
  if (!dropped.ok() && dropped.code() != ErrorCode::kNamespaceNotFound) return dropped;
  ASSIGN_OR_RETURN(std::shared_ptr<catalog::CollectionEntry> target,
                   catalog_->CreateCollection(request));

  Status copied = [&]() -> Status {
    CollectionWriter writer(*catalog_, *target);
    storage::Session read = storage_->NewUnboundSession();
    storage::Session write = storage_->NewUnboundSession();
    std::vector<bson::BsonDoc> batch;
    auto flush = [&]() -> Status {
      RETURN_IF_ERROR(RunWriteUnit(write, [&]() -> Status {
        for (const bson::BsonDoc& doc : batch) RETURN_IF_ERROR(writer.Insert(write, doc.get()));
        return Status::OK();
      }));
      batch.clear();
      return Status::OK();
    };
    RETURN_IF_ERROR(source->store->ForEachDocument(read, [&](int, const bson_t* doc) -> Status {
      batch.push_back(bson::BsonDoc::CopyOf(doc));
      if (batch.size() >= kCopyBatchDocuments) return flush();
      return Status::OK();
    }));
    return batch.empty() ? Status::OK() : flush();
  }();
  if (!copied.ok()) {
    static_cast<void>(catalog_->DropCollection(target->metadata.ns));
    return copied;
  }
  return catalog_->RenameCollection(target->metadata.ns, db, name, /*drop_target=*/true);
}

}  // namespace tigerdoc::engine
