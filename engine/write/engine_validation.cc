// Engine::ModifyValidation: collMod of a collection's schema validation
// options (document_validator.h).

#include <mutex>
#include <shared_mutex>
#include <string>

#include "engine/catalog/options_merge.h"
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
  return catalog_->ReplaceOptions(*entry, catalog::MergeOptions(entry->metadata.options.get(), changes));
}

}  // namespace tigerdoc::engine
