// Engine::ModifyValidation: collMod of a collection's schema validation
// options (document_validator.h).

#include <mutex>
#include <shared_mutex>
#include <string>

#include "engine/engine.h"
#include "engine/write/document_validator.h"

namespace tigerdoc::engine {

Status Engine::ModifyValidation(std::string_view db, std::string_view coll, const bson_t* changes) {
  RETURN_IF_ERROR(DocumentValidator::CheckOptions(changes, "collMod", db));
  std::shared_ptr<catalog::CollectionEntry> entry = catalog_->Lookup(Namespace(db, coll));
  if (!entry) return Status(ErrorCode::kNamespaceNotFound, "ns does not exist");
  // Exclusive: no write runs with the old settings half-replaced, and the
  // next writer compiles the new ones.
  std::unique_lock<std::shared_mutex> lock(entry->write_mutex());
  // The options in their order, each changed field replaced in place, new
  // ones appended (as MongoDB's listCollections shows them).
  bson::BsonDoc options;
  bson_iter_t it;
  bson_iter_init(&it, entry->metadata.options.get());
  while (bson_iter_next(&it)) {
    bson_iter_t changed;
    if (bson_iter_init_find(&changed, changes, bson_iter_key(&it))) {
      bson_append_iter(options.mutable_get(), bson_iter_key(&it), -1, &changed);
    } else {
      bson_append_iter(options.mutable_get(), bson_iter_key(&it), -1, &it);
    }
  }
  bson_iter_init(&it, changes);
  while (bson_iter_next(&it)) {
    bson_iter_t present;
    if (!bson_iter_init_find(&present, entry->metadata.options.get(), bson_iter_key(&it))) {
      bson_append_iter(options.mutable_get(), bson_iter_key(&it), -1, &it);
    }
  }
  return catalog_->ReplaceOptions(*entry, std::move(options));
}

}  // namespace tigerdoc::engine
