// Engine::Archive: moves the documents an ArchiveSpec selects from the
// source collection into the archive, a batch per WiredTiger transaction.
//
//   scan (read session, outside any transaction): the _ids of the next
//        batchSize documents matching filter AND {<olderThan.field>: {$lt: cutoff}}
//   one write unit (the write session's transaction, retried on conflicts):
//        re-read each by _id and keep those that still match
//        run [{$set: <set>}, {$merge: {into, on: "_id", whenMatched,
//             whenNotMatched: "insert"}}] over them -- the $merge stage of
//             engine/agg, whose writes BatchResolver sends through the
//             archive's CollectionWriter on the same session
//        remove each from the source through its CollectionWriter
//   commit: the batch is in the archive and out of the source, or neither.
//
// So after a crash at any point each document is in exactly one of the two
// collections (the journal holds a transaction's records as one unit), and
// a concurrent writer that changes a document between the scan and the
// transaction either makes it not match (it stays) or conflicts (the unit
// is retried with the new version). The cutoff and $$NOW are fixed when
// the move starts. Interruption (killOp, maxTimeMS, shutdown) is checked
// between batches only, so a batch is never half done.

#include <chrono>

#include "engine/base/wall_clock.h"
#include "engine/agg/pipeline.h"
#include "engine/aggregate_cursor.h"
#include "engine/archive/archive_spec.h"
#include "engine/engine.h"
#include "engine/operation_registry.h"
#include "engine/query/interrupt.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/plan_executor.h"
#include "engine/write/collection_writer.h"
#include "engine/write/document_rules.h"
#include "engine/write/write_unit.h"

namespace tigerdoc::engine {
namespace {

// The $merge stage's reads and writes, inside the batch's transaction: its
// lookups of the target see the batch's own earlier writes, and its writes
// go through the target's CollectionWriter (validator, indexes, hooks).
class BatchResolver : public agg::CollectionResolver {
 public:
  BatchResolver(Engine* engine, storage::Session* session)
      : engine_(engine), session_(session),
        describe_(engine, std::make_shared<SessionSlot>()) {}

  StatusWith<std::unique_ptr<agg::DocumentSource>> Open(std::string_view db, std::string_view coll,
                                                        const bson_t* filter) override {
    query::FindSpec spec;
    if (filter) spec.filter = bson::BsonDoc::CopyOf(filter);
    ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(engine_->catalog().Lookup(Namespace(db, coll)),
                                                          std::move(spec), engine_->Planner()));
    std::vector<bson::BsonDoc> found;
    bool exhausted = false;
    while (!exhausted) {
      RETURN_IF_ERROR(exec->FillBatch(*session_, 1000, kMaxBatchBytes, &found, &exhausted));
    }
    return std::unique_ptr<agg::DocumentSource>(new agg::VectorDocumentSource(std::move(found)));
  }

  StatusWith<agg::WriteTarget> DescribeTarget(std::string_view db, std::string_view coll) override {
    return describe_.DescribeTarget(db, coll);
  }

  Status Insert(std::string_view db, std::string_view coll, std::vector<bson::BsonDoc> docs) override {
    ASSIGN_OR_RETURN(CollectionWriter * writer, WriterFor(db, coll));
    for (const bson::BsonDoc& doc : docs) {
      ASSIGN_OR_RETURN(bson::BsonDoc stored, WithIdFirst(doc.get()));
      RETURN_IF_ERROR(CheckSize(stored.get(), writer->collection(), /*is_update=*/false));
      RETURN_IF_ERROR(writer->Insert(*session_, stored.get()));
    }
    return Status::OK();
  }

  Status Replace(std::string_view db, std::string_view coll, const bson_t* id,
                 const bson_t* replacement, bool* matched) override {
    ASSIGN_OR_RETURN(CollectionWriter * writer, WriterFor(db, coll));
    bson_iter_t it;
    bson_iter_init(&it, id);
    bson_iter_next(&it);
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> current,
                     writer->collection().store->FindById(*session_, bson_iter_value(&it)));
    *matched = current.has_value();
    if (!current) return Status::OK();
    // The archived document keeps its _id (the spec refuses `set._id`).
    ASSIGN_OR_RETURN(bson::BsonDoc stored, WithIdFirst(replacement));
    RETURN_IF_ERROR(CheckSize(stored.get(), writer->collection(), /*is_update=*/true));
    return writer->Update(*session_, current->get(), stored.get());
  }

 private:
  static Status CheckSize(const bson_t* doc, const catalog::CollectionEntry& coll, bool is_update) {
    if (static_cast<int64_t>(doc->len) <= coll.metadata.max_document_bytes) return Status::OK();
    if (is_update) {
      return Status(ErrorCode::kLocation17419, "Resulting document after update is larger than " +
                                                   std::to_string(coll.metadata.max_document_bytes));
    }
    return Status(ErrorCode::kBSONObjectTooLarge,
                  "object to insert too large. size in bytes: " + std::to_string(doc->len) +
                      ", max size: " + std::to_string(coll.metadata.max_document_bytes));
  }

  // One writer per collection for the whole batch (it holds the
  // collection's write mutex shared while it lives).
  StatusWith<CollectionWriter*> WriterFor(std::string_view db, std::string_view coll) {
    const std::string ns = Namespace(db, coll);
    auto found = writers_.find(ns);
    if (found != writers_.end()) return found->second.writer.get();
    ASSIGN_OR_RETURN(std::shared_ptr<catalog::CollectionEntry> entry,
                     engine_->catalog().GetOrCreate(db, coll, engine_->options().default_shards));
    Writer& w = writers_[ns];
    w.entry = std::move(entry);
    w.writer = std::make_unique<CollectionWriter>(engine_->catalog(), *w.entry);
    return w.writer.get();
  }

  struct Writer {
    std::shared_ptr<catalog::CollectionEntry> entry;
    std::unique_ptr<CollectionWriter> writer;
  };
  Engine* engine_;
  storage::Session* session_;
  EngineResolver describe_;  // DescribeTarget only: what $merge checks of its target
  std::map<std::string, Writer, std::less<>> writers_;

 public:
  // Lets go of the writers (and their collections' write mutexes) between
  // batches, so DDL on the archive is not held off for a whole move.
  void EndBatch() { writers_.clear(); }
};

// Hides the thread's operation kill flag (query::current_operation_killed)
// from the reads inside a batch, so that killOp stops a move between
// batches, not in the middle of one (which would roll it back and waste it).
class BatchNotInterruptible {
 public:
  BatchNotInterruptible() : saved_(query::current_operation_killed) {
    query::current_operation_killed = nullptr;
  }
  ~BatchNotInterruptible() { query::current_operation_killed = saved_; }
  BatchNotInterruptible(const BatchNotInterruptible&) = delete;
  BatchNotInterruptible& operator=(const BatchNotInterruptible&) = delete;

 private:
  const std::atomic<bool>* saved_;
};

// filter AND {<field>: {$lt: Date(cutoff)}}: $lt on a date matches dates
// only (type bracketing), so documents without a date there stay.
bson::BsonDoc SelectionFilter(const ArchiveSpec& spec, int64_t now_ms) {
  bson::BsonDoc filter;
  bson_t and_array, clause, op;
  BSON_APPEND_ARRAY_BEGIN(filter.mutable_get(), "$and", &and_array);
  BSON_APPEND_DOCUMENT(&and_array, "0", spec.filter.get());
  if (!spec.older_than_field.empty()) {
    BSON_APPEND_DOCUMENT_BEGIN(&and_array, "1", &clause);
    bson_append_document_begin(&clause, spec.older_than_field.c_str(),
                               static_cast<int>(spec.older_than_field.size()), &op);
    BSON_APPEND_DATE_TIME(&op, "$lt", now_ms - spec.older_than_seconds * 1000);
    bson_append_document_end(&clause, &op);
    bson_append_document_end(&and_array, &clause);
  }
  bson_append_array_end(filter.mutable_get(), &and_array);
  return filter;
}

// [{$set: <set>}, {$merge: {into: {db, coll}, on: "_id", whenMatched,
//  whenNotMatched: "insert"}}]; no $set stage without fields to set.
bson::BsonDoc MovePipeline(const ArchiveSpec& spec) {
  bson::BsonDoc pipeline;
  bson_t* p = pipeline.mutable_get();
  bson_t stage, merge, into;
  int index = 0;
  if (!bson_empty(spec.set.get())) {
    bson_append_document_begin(p, std::to_string(index++).c_str(), -1, &stage);
    BSON_APPEND_DOCUMENT(&stage, "$set", spec.set.get());
    bson_append_document_end(p, &stage);
  }
  BSON_APPEND_DOCUMENT_BEGIN(p, std::to_string(index).c_str(), &stage);
  BSON_APPEND_DOCUMENT_BEGIN(&stage, "$merge", &merge);
  BSON_APPEND_DOCUMENT_BEGIN(&merge, "into", &into);
  BSON_APPEND_UTF8(&into, "db", spec.to_db.c_str());
  BSON_APPEND_UTF8(&into, "coll", spec.to_coll.c_str());
  bson_append_document_end(&merge, &into);
  BSON_APPEND_UTF8(&merge, "on", "_id");
  BSON_APPEND_UTF8(&merge, "whenMatched", spec.when_matched.c_str());
  BSON_APPEND_UTF8(&merge, "whenNotMatched", "insert");
  bson_append_document_end(&stage, &merge);
  bson_append_document_end(p, &stage);
  return pipeline;
}

// [{$unionWith: "<archive>"}]
bson::BsonDoc UnionPipeline(const ArchiveSpec& spec) {
  bson::BsonDoc pipeline;
  bson_t stage;
  BSON_APPEND_DOCUMENT_BEGIN(pipeline.mutable_get(), "0", &stage);
  BSON_APPEND_UTF8(&stage, "$unionWith", spec.to_coll.c_str());
  bson_append_document_end(pipeline.mutable_get(), &stage);
  return pipeline;
}

// The progress a move reports (currentOp's `archive` field, the reply).
bson::BsonDoc ProgressFields(const ArchiveSpec& spec, const ArchiveResult& progress) {
  bson::BsonDoc out;
  bson_t archive;
  BSON_APPEND_DOCUMENT_BEGIN(out.mutable_get(), "archive", &archive);
  BSON_APPEND_UTF8(&archive, "ns", spec.source_ns().c_str());
  BSON_APPEND_UTF8(&archive, "target", spec.target_ns().c_str());
  BSON_APPEND_INT64(&archive, "moved", progress.moved);
  BSON_APPEND_INT64(&archive, "batches", progress.batches);
  BSON_APPEND_INT64(&archive, "batchSize", spec.batch_size);
  bson_append_document_end(out.mutable_get(), &archive);
  return out;
}

// A failure after `progress` was committed: the error keeps its code and
// extra fields, says what stays moved, and carries moved / batches.
Status WithProgress(const Status& error, const ArchiveResult& progress) {
  bson::BsonDoc extra;
  if (!error.extra_bson().empty()) {
    bson_t prior;
    if (bson_init_static(&prior, reinterpret_cast<const uint8_t*>(error.extra_bson().data()),
                         error.extra_bson().size())) {
      bson_concat(extra.mutable_get(), &prior);
    }
  }
  BSON_APPEND_INT64(extra.mutable_get(), "moved", progress.moved);
  BSON_APPEND_INT64(extra.mutable_get(), "batches", progress.batches);
  std::string reason = error.reason() + " :: archive stopped; its batch was rolled back, " +
                       std::to_string(progress.moved) + " documents in " +
                       std::to_string(progress.batches) + " earlier batches stay moved";
  return Status(error.code(), std::move(reason),
                std::string(reinterpret_cast<const char*>(bson_get_data(extra.get())), extra.get()->len));
}

}  // namespace

Status Engine::PrepareArchiveTarget(const ArchiveSpec& spec, ArchiveResult* result) {
  const std::string target_ns = spec.target_ns();
  if (catalog_->LookupView(target_ns) != nullptr) {
    return Status(ErrorCode::kCommandNotSupportedOnView,
                  "Namespace " + target_ns + " is a view, not a collection: an archive target must be a collection");
  }
  if (catalog_->Lookup(target_ns) != nullptr) return Status::OK();
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> indexes, ListIndexes(spec.db, spec.coll));
  CreateParams create;
  create.db = spec.to_db;
  create.name = spec.to_coll;
  Status created = CreateCollection(create);
  if (created.code() == ErrorCode::kNamespaceExists) return Status::OK();  // a concurrent move made it
  RETURN_IF_ERROR(created);
  result->created_target = true;
  // The archive answers the same queries: it gets the source's indexes.
  CreateIndexesParams copy;
  copy.db = spec.to_db;
  copy.coll = spec.to_coll;
  for (bson::BsonDoc& index : indexes) {
    bson_iter_t name;
    if (bson_iter_init_find(&name, index.get(), "name") && BSON_ITER_HOLDS_UTF8(&name) &&
        std::string_view(bson_iter_utf8(&name, nullptr)) == "_id_") {
      continue;
    }
    copy.specs.push_back(std::move(index));
  }
  if (!copy.specs.empty()) {
    StatusWith<CreateIndexesResult> made = CreateIndexes(copy);
    if (!made.ok()) return made.status().WithContext("copying the indexes of " + spec.source_ns() + " to the archive: ");
  }
  return Status::OK();
}

Status Engine::EnsureArchiveUnionView(const ArchiveSpec& spec) {
  if (spec.union_view.empty()) return Status::OK();
  const std::string ns = Namespace(spec.db, spec.union_view);
  if (catalog_->Lookup(ns) != nullptr) {
    return Status(ErrorCode::kNamespaceExists,
                  "unionView " + ns + " is a collection; name a view (or a name not in use)");
  }
  CreateViewParams view;
  view.db = spec.db;
  view.name = spec.union_view;
  view.view_on = spec.coll;
  view.pipeline = UnionPipeline(spec);
  std::shared_ptr<const catalog::ViewDefinition> existing = catalog_->LookupView(ns);
  if (existing == nullptr) {
    Status created = CreateView(view);
    if (created.code() != ErrorCode::kNamespaceExists) return created;
    existing = catalog_->LookupView(ns);
    if (existing == nullptr) return created;
  }
  // Keep it: a view that drifted (another viewOn or pipeline) is put back.
  if (existing->view_on == view.view_on &&
      bson_equal(existing->pipeline.get(), view.pipeline.get())) {
    return Status::OK();
  }
  return ModifyView(view);
}

StatusWith<ArchiveResult> Engine::Archive(const ArchiveSpec& spec, Operation* op) {
  ArchiveResult result;
  const std::string source_ns = spec.source_ns();
  if (spec.coll.rfind("system.", 0) == 0) {
    return Status(ErrorCode::kBadValue, "cannot archive the system collection " + source_ns);
  }
  RETURN_IF_ERROR(RefuseView(spec.db, spec.coll));
  std::shared_ptr<catalog::CollectionEntry> source = catalog_->Lookup(source_ns);
  if (!source) return Status(ErrorCode::kNamespaceNotFound, "ns not found: " + source_ns);
  RETURN_IF_ERROR(PrepareArchiveTarget(spec, &result));
  RETURN_IF_ERROR(EnsureArchiveUnionView(spec));

  const int64_t now_ms = WallClockMillis();
  const bson::BsonDoc selection = SelectionFilter(spec, now_ms);
  ASSIGN_OR_RETURN(std::unique_ptr<query::Matcher> matcher, query::Matcher::Parse(selection.get()));
  storage::Session read_session = storage_->NewSession();
  storage::Session session = storage_->NewSession();
  BatchResolver resolver(this, &session);
  agg::ExpressionContext ctx;
  ctx.now_millis = now_ms;
  ctx.db = spec.db;
  ctx.resolver = &resolver;
  ctx.temp_dir = SortSpillDirectory();
  const bson::BsonDoc pipeline_array = MovePipeline(spec);
  ASSIGN_OR_RETURN(agg::Pipeline pipeline, agg::Pipeline::Parse(pipeline_array.get(), ctx));
  if (op != nullptr) op->Report(ProgressFields(spec, result));

  while (true) {
    if (op != nullptr) {
      Status interrupted = op->CheckInterrupt();
      if (!interrupted.ok()) return WithProgress(interrupted, result);
    } else if (Status down = query::CheckShutdown(); !down.ok()) {
      return WithProgress(down, result);
    }
    query::FindSpec scan;
    scan.filter = selection.Copy();
    scan.limit = spec.batch_size;
    ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(source, std::move(scan), Planner()));
    std::vector<bson::BsonDoc> ids;
    bool exhausted = false;
    while (!exhausted && static_cast<int64_t>(ids.size()) < spec.batch_size) {
      std::vector<bson::BsonDoc> found;
      Status scanned = exec->FillBatch(read_session, spec.batch_size - static_cast<int64_t>(ids.size()),
                                       kMaxBatchBytes, &found, &exhausted);
      if (!scanned.ok()) return WithProgress(scanned, result);
      for (const bson::BsonDoc& doc : found) ids.push_back(IdOf(doc.get()));
    }
    exec.reset();
    if (ids.empty()) break;

    int64_t moved = 0;
    {
      // A batch, once started, finishes: killOp is noticed before the next.
      BatchNotInterruptible uninterruptible;
      CollectionWriter source_writer(*catalog_, *source);
      Status status = RunWriteUnit(session, [&]() -> Status {
        moved = 0;
        std::vector<bson::BsonDoc> batch;
        for (const bson::BsonDoc& id : ids) {
          bson_iter_t it;
          bson_iter_init(&it, id.get());
          bson_iter_next(&it);
          ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> current,
                           source->store->FindById(session, bson_iter_value(&it)));
          if (current && matcher->Matches(current->get())) batch.push_back(std::move(*current));
        }
        if (batch.empty()) return Status::OK();
        std::vector<bson::BsonDoc> input;
        input.reserve(batch.size());
        for (const bson::BsonDoc& doc : batch) input.push_back(doc.Copy());
        RETURN_IF_ERROR(agg::RunToVector(pipeline, std::make_unique<agg::VectorDocumentSource>(std::move(input)))
                            .status());
        for (const bson::BsonDoc& doc : batch) RETURN_IF_ERROR(source_writer.Remove(session, doc.get()));
        moved = static_cast<int64_t>(batch.size());
        return Status::OK();
      });
      resolver.EndBatch();
      if (!status.ok()) return WithProgress(status, result);
    }
    if (moved > 0) {
      result.moved += moved;
      ++result.batches;
    }
    if (op != nullptr) op->Report(ProgressFields(spec, result));
    if (static_cast<int64_t>(ids.size()) < spec.batch_size) break;  // the scan found the last ones
  }
  return result;
}

}  // namespace tigerdoc::engine
