// Catalog: views. A view is one row of the catalog table (format in
// catalog.h); it owns no tables, so creating and dropping one is a single
// write of that row.

#include <string>

#include "engine/catalog/catalog.h"
#include "engine/catalog/pipeline_references.h"
#include "engine/collation/collator_factory.h"

namespace tigerdoc::catalog {
namespace {

constexpr char kViewType[] = "view";

std::string Utf8(const bson_iter_t* it) {
  uint32_t len = 0;
  const char* s = bson_iter_utf8(it, &len);
  return std::string(s, len);
}

}  // namespace

bson::BsonDoc ViewDefinition::ToBson() const {
  bson::BsonDoc out;
  bson_t* doc = out.mutable_get();
  BSON_APPEND_UTF8(doc, "ns", ns.c_str());
  BSON_APPEND_UTF8(doc, "type", kViewType);
  BSON_APPEND_UTF8(doc, "viewOn", view_on.c_str());
  BSON_APPEND_ARRAY(doc, "pipeline", pipeline.get());
  if (is_timeseries()) BSON_APPEND_DOCUMENT(doc, "timeseries", timeseries.get());
  if (collator != nullptr) BSON_APPEND_DOCUMENT(doc, "collation", collator->spec());
  return out;
}

bool ViewDefinition::IsViewEntry(const bson_t* doc) {
  bson_iter_t it;
  return bson_iter_init_find(&it, doc, "type") && BSON_ITER_HOLDS_UTF8(&it) &&
         std::string_view(bson_iter_utf8(&it, nullptr)) == kViewType;
}

StatusWith<ViewDefinition> ViewDefinition::FromBson(const bson_t* doc) {
  ViewDefinition view;
  bool has_ns = false, has_view_on = false, has_pipeline = false;
  bson_iter_t it;
  if (!bson_iter_init(&it, doc)) {
    return Status(ErrorCode::kFailedToParse, "malformed view entry: not a BSON document");
  }
  while (bson_iter_next(&it)) {
    std::string_view key = bson_iter_key(&it);
    if (key == "ns" && BSON_ITER_HOLDS_UTF8(&it)) {
      view.ns = Utf8(&it);
      has_ns = true;
    } else if (key == "viewOn" && BSON_ITER_HOLDS_UTF8(&it)) {
      view.view_on = Utf8(&it);
      has_view_on = true;
    } else if (key == "pipeline" && BSON_ITER_HOLDS_ARRAY(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_array(&it, &len, &data);
      view.pipeline = bson::BsonDoc::CopyOf(data, len);
      has_pipeline = true;
    } else if (key == "timeseries" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      view.timeseries = bson::BsonDoc::CopyOf(data, len);
    } else if (key == "collation" && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      // Stored normalized by create, so it parses as it did then.
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      bson_t spec;
      if (!bson_init_static(&spec, data, len)) {
        return Status(ErrorCode::kFailedToParse, "malformed view entry: bad collation");
      }
      ASSIGN_OR_RETURN(view.collator, collation::CollatorFor(&spec));
    }
  }
  size_t dot = view.ns.find('.');
  if (!has_ns || !has_view_on || !has_pipeline || dot == std::string::npos || dot == 0 ||
      dot + 1 == view.ns.size()) {
    return Status(ErrorCode::kFailedToParse, "malformed view entry: missing ns, viewOn or pipeline");
  }
  view.db = view.ns.substr(0, dot);
  view.name = view.ns.substr(dot + 1);
  return view;
}

std::shared_ptr<const ViewDefinition> Catalog::LookupView(std::string_view ns) const {
  std::shared_lock<std::shared_mutex> lock(map_mutex_);
  auto it = views_.find(ns);
  return it == views_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const ViewDefinition>> Catalog::ListViews(std::string_view db) const {
  std::shared_lock<std::shared_mutex> lock(map_mutex_);
  std::vector<std::shared_ptr<const ViewDefinition>> out;
  for (const auto& [ns, view] : views_) {
    if (db.empty() || view->db == db) out.push_back(view);
  }
  return out;
}

Status Catalog::CheckViewChain(const ViewDefinition& view) const {
  // Every view already in the catalog has an acyclic chain, so a cycle can
  // only lead back to `view` itself.
  std::string chain = view.ns;
  std::string next = view.view_on;
  for (int depth = 1;; ++depth) {
    const std::string next_ns = view.db + "." + next;
    if (next_ns == view.ns) {
      return Status(ErrorCode::kGraphContainsCycle,
                    "View cycle detected: " + chain + " => " + next_ns);
    }
    std::shared_ptr<const ViewDefinition> below = LookupView(next_ns);
    if (below == nullptr) return Status::OK();
    if (depth >= kMaxViewDepth) {
      return Status(ErrorCode::kViewDepthLimitExceeded,
                    "View depth too deep or view cycle detected; maximum depth is " +
                        std::to_string(kMaxViewDepth));
    }
    chain += " => " + next_ns;
    next = below->view_on;
  }
}

Status Catalog::CheckViewCollations(const ViewDefinition& view, bool check_readers) const {
  // What this view reads (MongoDB lists viewOn after the pipeline's).
  std::vector<std::string> reads = PipelineReferences(view.pipeline.get());
  reads.push_back(view.view_on);
  for (const std::string& name : reads) {
    std::shared_ptr<const ViewDefinition> below = LookupView(view.db + "." + name);
    if (below != nullptr && !bson::SameCollation(below->collator, view.collator)) {
      return Status(ErrorCode::kOptionNotSupportedOnView,
                    "View " + view.ns + " has conflicting collation with view " + below->ns);
    }
  }
  if (!check_readers) return Status::OK();
  // The views that read this one, even while it did not exist (a view
  // dropped and created again keeps its readers' collation).
  for (const std::shared_ptr<const ViewDefinition>& reader : ListViews(view.db)) {
    if (reader->ns == view.ns || bson::SameCollation(reader->collator, view.collator)) continue;
    std::vector<std::string> reader_reads = PipelineReferences(reader->pipeline.get());
    reader_reads.push_back(reader->view_on);
    for (const std::string& name : reader_reads) {
      if (name != view.name) continue;
      return Status(ErrorCode::kOptionNotSupportedOnView,
                    "View " + view.ns + " has a collation that does not match the collation of view " +
                        reader->ns);
    }
  }
  return Status::OK();
}

Status Catalog::PutViewLocked(ViewDefinition view, bool must_be_new) {
  RETURN_IF_ERROR(CheckViewCollations(view, /*check_readers=*/false));
  RETURN_IF_ERROR(CheckViewChain(view));
  RETURN_IF_ERROR(CheckViewCollations(view, /*check_readers=*/true));
  storage::Session session = engine_->NewUnboundSession();
  bson::BsonDoc row = view.ToBson();
  if (must_be_new) {
    RETURN_IF_ERROR(session.Insert(kCatalogTable, view.ns, row.bytes()));
  } else {
    RETURN_IF_ERROR(session.Put(kCatalogTable, view.ns, row.bytes()));
  }
  std::string ns = view.ns;
  std::unique_lock<std::shared_mutex> lock(map_mutex_);
  views_[ns] = std::make_shared<const ViewDefinition>(std::move(view));
  return Status::OK();
}

Status Catalog::CreateView(ViewDefinition view) {
  std::lock_guard<std::mutex> ddl(ddl_mutex_);
  RETURN_IF_ERROR(ValidateNamespace(view.db, view.name));
  if (Lookup(view.ns) != nullptr || LookupView(view.ns) != nullptr) {
    return Status(ErrorCode::kNamespaceExists, "Collection " + view.ns + " already exists.");
  }
  return PutViewLocked(std::move(view), /*must_be_new=*/true);
}

Status Catalog::ModifyView(ViewDefinition view) {
  std::lock_guard<std::mutex> ddl(ddl_mutex_);
  std::shared_ptr<const ViewDefinition> existing = LookupView(view.ns);
  if (existing == nullptr) return Status(ErrorCode::kNamespaceNotFound, "ns not found");
  view.collator = existing->collator;  // collMod cannot change it
  return PutViewLocked(std::move(view), /*must_be_new=*/false);
}

Status Catalog::DropViewLocked(const std::string& ns) {
  if (LookupView(ns) == nullptr) return Status(ErrorCode::kNamespaceNotFound, "ns not found");
  storage::Session session = engine_->NewUnboundSession();
  RETURN_IF_ERROR(session.Remove(kCatalogTable, ns));
  std::unique_lock<std::shared_mutex> lock(map_mutex_);
  views_.erase(ns);
  return Status::OK();
}

}  // namespace tigerdoc::catalog
