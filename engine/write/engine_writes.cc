// Engine's write path: insert, update, delete, findAndModify.
//
// Every document change runs in its own write unit (one WiredTiger
// transaction, retried on write conflicts). Statements that match several
// documents first collect the matching _ids with a scan, then change each
// document by _id, re-checking the filter inside the transaction: a
// concurrent writer may have changed or removed it since the scan, and a
// document is never changed twice by one statement (it may move when its
// shard key value changes).

#include <cmath>
#include <algorithm>
#include <string>

#include "engine/bson/shell_string.h"
#include "engine/command_expressions.h"
#include "engine/operation_collation.h"
#include "engine/write/collection_writer.h"
#include "engine/write/document_rules.h"
#include "engine/write/grouped_insert.h"
#include "engine/engine.h"
#include "engine/id_point_read.h"
#include "engine/query/matcher/match_details.h"
#include "engine/query/matcher/matcher.h"
#include "engine/query/interrupt.h"
#include "engine/query/plan_executor.h"
#include "engine/query/text_search.h"
#include "engine/query/projection.h"
#include "engine/update/update_driver.h"
#include "engine/write/write_unit.h"

namespace tigerdoc::engine {
namespace {

// Documents a multi-document statement collects per scan batch.
constexpr int64_t kMatchBatchDocs = 1000;

Status CheckSize(const bson_t* doc, int64_t max_bytes, bool is_update) {
  if (static_cast<int64_t>(doc->len) <= max_bytes) return Status::OK();
  if (is_update) {
    return Status(ErrorCode::kLocation17419, "Resulting document after update is larger than " +
                                                 std::to_string(max_bytes));
  }
  // Over MongoDB's own 16 MiB limit it is BadValue, as mongod's
  // fixDocumentForInsert says; under it, only a collection's smaller
  // maxDocumentBytes (size_limits) refuses it, with BSONObjectTooLarge.
  constexpr int64_t kMaxUserDocumentBytes = 16 * 1024 * 1024;
  const ErrorCode code = static_cast<int64_t>(doc->len) > kMaxUserDocumentBytes
                             ? ErrorCode::kBadValue
                             : ErrorCode::kBSONObjectTooLarge;
  return Status(code, "object to insert too large. size in bytes: " + std::to_string(doc->len) +
                          ", max size: " + std::to_string(max_bytes));
}

// Inserts documents that already have their _id first, in one write unit.
Status InsertUnit(storage::Session& session, catalog::Catalog& catalog,
                  catalog::CollectionEntry& coll, const PreparedInsert* docs, size_t count,
                  bool bypass_validation, bool from_update = false,
                  bson::BsonDoc* stored = nullptr) {
  CollectionWriter writer(catalog, coll);
  if (bypass_validation) writer.BypassDocumentValidation();
  return RunWriteUnit(session, [&]() -> Status {
    for (size_t i = 0; i < count; ++i) {
      bson_t doc;
      docs[i].View(&doc);
      RETURN_IF_ERROR(writer.Insert(session, &doc, from_update, i == 0 ? stored : nullptr));
    }
    return Status::OK();
  });
}

// The _ids of the documents a statement targets, in `sort` order (scan
// order when empty); at most one when `only_first`.
StatusWith<std::vector<bson::BsonDoc>> MatchingIds(storage::Session& session,
                                                   std::shared_ptr<catalog::CollectionEntry> coll,
                                                   const bson_t* filter, const bson_t* sort,
                                                   bool only_first,
                                                   const CommandExpressions& expressions,
                                                   const query::PlannerContext& planner,
                                                   const bson::Collator* collator) {
  query::FindSpec spec;
  spec.filter = bson::BsonDoc::CopyOf(filter);
  spec.collator = collator;
  spec.expressions = expressions.parser;
  if (sort) spec.sort = bson::BsonDoc::CopyOf(sort);
  spec.limit = only_first ? 1 : 0;
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(std::move(coll), std::move(spec), planner));
  exec->RecordIndexUse();
  // FillBatch adds at most max_docs to the vector it is given, so each batch
  // gets a fresh one; only the _ids are kept.
  std::vector<bson::BsonDoc> ids;
  bool exhausted = false;
  while (!exhausted) {
    std::vector<bson::BsonDoc> batch;
    RETURN_IF_ERROR(exec->FillBatch(session, kMatchBatchDocs, kMaxBatchBytes, &batch, &exhausted));
    for (const bson::BsonDoc& doc : batch) ids.push_back(IdOf(doc.get()));
  }
  return ids;
}

// {_id: v} with v a string, an integer, a finite double or an ObjectId:
// the one document it can match is found by a point read, and UpdateById
// reads it and checks the filter again, so no query plan is needed. Building
// and running one (MatchingIds) cost about a sixth of an update by _id
// (YCSB A, bench/README.md). Other values keep the planner: null matches a
// missing field, regexes, arrays and documents have their own semantics.
std::optional<bson::BsonDoc> IdEquality(const catalog::CollectionEntry& coll, const bson_t* filter) {
  std::optional<bson::BsonDoc> id = IdEqualityOf(filter);  // engine/id_point_read.h
  // As the plan's point read would: one use of the _id index where the
  // record keys are it.
  if (id && coll.store->shard_key_is_id()) coll.id_index_usage->Record();
  return id;
}

const bson_value_t* FirstValue(const bson::BsonDoc& one_value_doc, bson_iter_t* it) {
  INVARIANT(bson_iter_init(it, one_value_doc.get()) && bson_iter_next(it));
  return bson_iter_value(it);
}

// An iterator on the value of {_id: v}.
bson_iter_t IdValueOf(const bson::BsonDoc& id_doc) {
  bson_iter_t it;
  INVARIANT(bson_iter_init(&it, id_doc.get()) && bson_iter_next(&it));
  return it;
}

// What happened to one document.
struct DocumentChange {
  bool matched = false;
  bool modified = false;
  std::optional<bson::BsonDoc> before;
  std::optional<bson::BsonDoc> after;
};

// Updates the document whose _id is the value `id` points at if it still
// matches, in one write unit. A null `matcher` stands for the filter
// {_id: <that value>}: the document the point read returns matches when its
// _id equals the value (StoredIdEquals), and a positional '$' has no array
// match to stand for (an _id is never an array), as with the parsed filter.
// Without `keep_images` the change's before and after stay empty (update
// reports counts only; findAndModify returns one of them).
StatusWith<DocumentChange> UpdateById(storage::Session& session, catalog::Catalog& catalog,
                                      catalog::CollectionEntry& coll, const bson_iter_t& id,
                                      const query::Matcher* matcher,
                                      const update::UpdateDriver& driver,
                                      const CollectionWriter::UpdateSpec& spec,
                                      bool bypass_validation, bool keep_images = true) {
  DocumentChange change;
  CollectionWriter writer(catalog, coll);
  if (bypass_validation) writer.BypassDocumentValidation();
  RETURN_IF_ERROR(RunWriteUnit(session, [&]() -> Status {
    change = DocumentChange();
    bson_iter_t id_value = id;  // bson_iter_value takes a mutable iterator
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> current,
                     coll.store->FindById(session, bson_iter_value(&id_value)));
    if (!current) return Status::OK();
    const bool matches = matcher != nullptr ? matcher->Matches(current->get())
                                            : StoredIdEquals(current->get(), id);
    if (!matches) return Status::OK();
    change.matched = true;
    // A positional ($) update needs the index of the array element the
    // query matched, as MongoDB's elemMatchKey.
    std::optional<size_t> positional;
    if (driver.is_positional() && matcher != nullptr) {
      query::MatchDetails details;
      matcher->Matches(current->get(), &details);
      positional = details.elem_match_index();
    }
    ASSIGN_OR_RETURN(update::ApplyResult applied, driver.Apply(current->get(), false, positional));
    // A pattern may keep part of the document elsewhere (an outlier's
    // overflow) and know better whether the update changes anything.
    ASSIGN_OR_RETURN(bool modified, writer.UpdateModifies(session, current->get(), applied.doc.get(),
                                                          spec, applied.modified));
    if (modified) {
      RETURN_IF_ERROR(CheckSize(applied.doc.get(), coll.metadata.max_document_bytes, true));
      // The store moves the document when its shard key value changed.
      bson::BsonDoc stored;
      RETURN_IF_ERROR(writer.Update(session, current->get(), applied.doc.get(), spec, &stored));
      // What was stored, when a pattern reshaped it (findAndModify's new).
      if (!stored.empty()) applied.doc = std::move(stored);
      change.modified = true;
    }
    if (!keep_images) return Status::OK();
    change.after = std::move(applied.doc);
    change.before = std::move(current);
    return Status::OK();
  }));
  return change;
}

// Removes the document with _id `id` if it still matches; returns it.
StatusWith<std::optional<bson::BsonDoc>> RemoveById(storage::Session& session,
                                                    catalog::Catalog& catalog,
                                                    catalog::CollectionEntry& coll,
                                                    const bson::BsonDoc& id,
                                                    const query::Matcher& matcher) {
  std::optional<bson::BsonDoc> removed;
  CollectionWriter writer(catalog, coll);
  RETURN_IF_ERROR(RunWriteUnit(session, [&]() -> Status {
    removed.reset();
    bson_iter_t it;
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> current,
                     coll.store->FindById(session, FirstValue(id, &it)));
    if (!current || !matcher.Matches(current->get())) return Status::OK();
    RETURN_IF_ERROR(writer.Remove(session, current->get()));
    removed = std::move(current);
    return Status::OK();
  }));
  return removed;
}

// The document an upsert inserts: the filter's equality fields, then the
// update applied as an insert ($setOnInsert included). A replacement keeps
// only an _id fixed by the filter.
StatusWith<bson::BsonDoc> UpsertDocument(const query::Matcher& query,
                                         const update::UpdateDriver& driver) {
  ASSIGN_OR_RETURN(bson::BsonDoc seed, update::BuildUpsertSeed(query));
  bson::BsonDoc new_doc;
  if (driver.is_replacement()) {
    // The replacement applied to {_id: <the filter's>}: it takes that _id
    // when it has none, and one that differs is ImmutableField (66), as in
    // MongoDB.
    bson::BsonDoc id_only;
    bson_iter_t seed_id;
    if (bson_iter_init_find(&seed_id, seed.get(), "_id")) {
      bson_append_iter(id_only.mutable_get(), "_id", 3, &seed_id);
    }
    ASSIGN_OR_RETURN(update::ApplyResult applied, driver.Apply(id_only.get(), true));
    new_doc = std::move(applied.doc);
  } else {
    ASSIGN_OR_RETURN(update::ApplyResult applied, driver.Apply(seed.get(), true));
    new_doc = std::move(applied.doc);
  }
  return WithIdFirst(new_doc.get());
}

// What Update and Delete make of a statement before touching documents:
// its collection (null when missing), the operation's collation, the
// command's `let` expressions, and the filter's matcher, its $text (if
// any) bound like the plan's so that it checks each target again.
struct StatementFilter {
  std::shared_ptr<catalog::CollectionEntry> coll;
  const bson::Collator* collator = nullptr;
  CommandExpressions expressions;
  std::unique_ptr<query::Matcher> matcher;
};

template <typename Statement>  // UpdateStatement or DeleteStatement
StatusWith<StatementFilter> ParseStatementFilter(catalog::Catalog& catalog, std::string_view db,
                                                 std::string_view coll_name,
                                                 const Statement& statement) {
  StatementFilter out;
  out.coll = catalog.Lookup(Namespace(db, coll_name));
  out.collator = OperationCollator(statement.collation, out.coll.get());
  ASSIGN_OR_RETURN(out.expressions,
                   CommandExpressions::Make(db, statement.let.get(), out.collator));
  ASSIGN_OR_RETURN(out.matcher, query::Matcher::Parse(statement.query.get(),
                                                      out.expressions.parser.get(), out.collator));
  RETURN_IF_ERROR(
      query::BindTextQuery(out.matcher.get(), out.coll ? out.coll->indexes().get() : nullptr)
          .status());
  return out;
}

}  // namespace

StatusWith<std::vector<Status>> Engine::InsertMany(std::string_view db, std::string_view coll_name,
                                                   std::vector<bson::BsonDoc> docs, bool ordered,
                                                   bool bypass_validation) {
  std::vector<std::string_view> views;
  views.reserve(docs.size());
  for (const bson::BsonDoc& doc : docs) views.push_back(doc.bytes());
  return InsertMany(db, coll_name, std::span<const std::string_view>(views), ordered,
                    bypass_validation);
}

StatusWith<std::vector<Status>> Engine::InsertMany(std::string_view db, std::string_view coll_name,
                                                   std::span<const std::string_view> docs,
                                                   bool ordered, bool bypass_validation) {
  // Large enough to amortise a commit, small enough that a retried group
  // (after a failure inside it) costs little.
  constexpr size_t kGroupSize = 64;
  // One namespace string and one view lookup (a time-series collection is
  // a view; any other view refuses the insert): each step built its own
  // before, 1,800 instructions of a one-document insert.
  const std::string ns = Namespace(db, coll_name);
  if (auto view = catalog_->LookupView(ns)) {
    if (view->is_timeseries()) return InsertMeasurements(*view, docs, ordered);
    return RefuseView(db, coll_name);
  }
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(ns);
  if (coll == nullptr) {
    ASSIGN_OR_RETURN(coll, catalog_->GetOrCreate(db, coll_name, options_.default_shards));
  }
  storage::Session session = storage_->NewSession();

  // Prepares one document (_id first, size); a failure is final for it. A
  // document whose _id is first is stored from the caller's bytes.
  auto prepare = [&](std::string_view input) -> StatusWith<PreparedInsert> {
    bson_t view;
    INVARIANT(bson_init_static(&view, reinterpret_cast<const uint8_t*>(input.data()),
                               input.size()));
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> rebuilt, RebuiltWithIdFirst(&view));
    PreparedInsert doc = rebuilt ? PreparedInsert(std::move(*rebuilt)) : PreparedInsert(input);
    bson_t stored;
    doc.View(&stored);
    RETURN_IF_ERROR(CheckSize(&stored, coll->metadata.max_document_bytes, false));
    return doc;
  };
  auto insert = [&](const PreparedInsert* group, size_t count) {
    return InsertUnit(session, *catalog_, *coll, group, count, bypass_validation);
  };
  // In a client's transaction a failed group would end the transaction
  // before the one-by-one retry could name the failing document.
  const size_t group_size = session.joins_outer_transaction() ? 1 : kGroupSize;
  return InsertInGroups(docs, group_size, ordered, prepare, insert);
}

StatusWith<bool> Engine::RemoveIfMatches(storage::Session& session,
                                         const std::shared_ptr<catalog::CollectionEntry>& coll,
                                         const bson::BsonDoc& id, const query::Matcher& matcher) {
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> removed,
                   RemoveById(session, *catalog_, *coll, id, matcher));
  return removed.has_value();
}

// Inserts the upsert document of `query` + `driver`; returns it.
StatusWith<bson::BsonDoc> Engine::UpsertInsert(storage::Session& session, std::string_view db,
                                               std::string_view coll_name,
                                               const query::Matcher& query,
                                               const update::UpdateDriver& driver,
                                               bool bypass_validation) {
  ASSIGN_OR_RETURN(bson::BsonDoc doc, UpsertDocument(query, driver));
  ASSIGN_OR_RETURN(auto coll, catalog_->GetOrCreate(db, coll_name, options_.default_shards));
  RETURN_IF_ERROR(CheckSize(doc.get(), coll->metadata.max_document_bytes, true));
  // What was stored, when a pattern reshaped it (findAndModify's new).
  bson::BsonDoc stored;
  const PreparedInsert prepared(doc.bytes());
  RETURN_IF_ERROR(InsertUnit(session, *catalog_, *coll, &prepared, 1, bypass_validation,
                             /*from_update=*/true, &stored));
  if (!stored.empty()) return stored;
  return doc;
}

StatusWith<UpdateResult> Engine::Update(std::string_view db, std::string_view coll_name,
                                        const UpdateStatement& statement) {
  // One namespace string and one view lookup (a time-series collection is
  // a view; any other view refuses the update).
  const std::string ns = Namespace(db, coll_name);
  if (auto view = catalog_->LookupView(ns)) {
    if (view->is_timeseries()) return UpdateMeasurements(*view, statement);
    return RefuseView(db, coll_name);
  }
  // The filter {_id: v} without a collation, `let` or pipeline: no matcher,
  // no expression context, no list of targets. The point read answers the
  // filter (UpdateById checks the _id it returns), and neither can fail to
  // parse, so errors are those of the general path below. Parsing them and
  // tearing them down was about 4,000 instructions of an $inc by _id.
  bson_iter_t id_it;  // on v inside statement.query
  if (!statement.update_is_pipeline && !statement.constants && statement.let.empty() &&
      FindIdEquality(statement.query.get(), &id_it)) {
    std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(ns);
    if (coll != nullptr && OperationCollator(statement.collation, coll.get()) == nullptr) {
      ASSIGN_OR_RETURN(update::UpdateDriver driver,
                       update::UpdateDriver::Parse(statement.update.get(),
                                                   statement.array_filters
                                                       ? statement.array_filters->get()
                                                       : nullptr));
      if (statement.multi && driver.is_replacement()) {
        return Status(ErrorCode::kFailedToParse,
                      "multi update is not supported for replacement-style update");
      }
      CollectionWriter::UpdateSpec spec;
      if (!driver.is_replacement()) spec.update = statement.update.get();
      spec.is_replacement = driver.is_replacement();
      // As the plan's point read would: one use of the _id index where the
      // record keys are it.
      if (coll->store->shard_key_is_id()) coll->id_index_usage->Record();
      storage::Session session = storage_->NewSession();
      ASSIGN_OR_RETURN(DocumentChange change,
                       UpdateById(session, *catalog_, *coll, id_it, /*matcher=*/nullptr, driver, spec,
                                  statement.bypass_document_validation, /*keep_images=*/false));
      UpdateResult result;
      result.matched = change.matched ? 1 : 0;
      result.modified = change.modified ? 1 : 0;
      if (change.matched || !statement.upsert) return result;
      // The upsert's seed comes from the parsed filter ({_id: v}: no $expr).
      ASSIGN_OR_RETURN(std::unique_ptr<query::Matcher> matcher,
                       query::Matcher::Parse(statement.query.get()));
      ASSIGN_OR_RETURN(bson::BsonDoc inserted,
                       UpsertInsert(session, db, coll_name, *matcher, driver,
                                    statement.bypass_document_validation));
      result.matched = 1;
      result.upserted_id = IdOf(inserted.get());
      return result;
    }
  }
  ASSIGN_OR_RETURN(StatementFilter filter,
                   ParseStatementFilter(*catalog_, db, coll_name, statement));
  ASSIGN_OR_RETURN(update::UpdateDriver driver,
                   ParseUpdateDriver(statement.update, statement.update_is_pipeline,
                                     statement.array_filters, statement.constants,
                                     filter.expressions));
  if (statement.multi && driver.is_replacement()) {
    return Status(ErrorCode::kFailedToParse, "multi update is not supported for replacement-style update");
  }
  UpdateResult result;
  CollectionWriter::UpdateSpec spec;
  spec.is_pipeline = statement.update_is_pipeline;
  if (!driver.is_replacement() && !statement.update_is_pipeline) spec.update = statement.update.get();
  spec.is_replacement = driver.is_replacement();
  storage::Session session = storage_->NewSession();
  if (filter.coll) {
    std::vector<bson::BsonDoc> ids;
    // The {_id: v} shortcut compares _id by bytes: not under a collation.
    std::optional<bson::BsonDoc> by_id;
    if (filter.collator == nullptr) by_id = IdEquality(*filter.coll, statement.query.get());
    if (by_id) {
      ids.push_back(std::move(*by_id));
    } else {
      ASSIGN_OR_RETURN(ids, MatchingIds(session, filter.coll, statement.query.get(), nullptr,
                                        !statement.multi, filter.expressions, Planner(),
                                        filter.collator));
    }
    for (const bson::BsonDoc& id : ids) {
      // A statement over many documents stops between documents when the
      // server shuts down (what it changed so far stays, as in MongoDB).
      RETURN_IF_ERROR(query::CheckShutdown());
      ASSIGN_OR_RETURN(DocumentChange change,
                       UpdateById(session, *catalog_, *filter.coll, IdValueOf(id),
                                  filter.matcher.get(), driver, spec,
                                  statement.bypass_document_validation, /*keep_images=*/false));
      result.matched += change.matched ? 1 : 0;
      result.modified += change.modified ? 1 : 0;
    }
  }
  if (result.matched > 0 || !statement.upsert) return result;
  ASSIGN_OR_RETURN(bson::BsonDoc inserted,
                   UpsertInsert(session, db, coll_name, *filter.matcher, driver,
                                statement.bypass_document_validation));
  result.matched = 1;
  result.upserted_id = IdOf(inserted.get());
  return result;
}

StatusWith<DeleteResult> Engine::Delete(std::string_view db, std::string_view coll_name,
                                        const DeleteStatement& statement) {
  if (auto view = TimeseriesView(db, coll_name)) return DeleteMeasurements(*view, statement);
  RETURN_IF_ERROR(RefuseView(db, coll_name));
  ASSIGN_OR_RETURN(StatementFilter filter,
                   ParseStatementFilter(*catalog_, db, coll_name, statement));
  DeleteResult result;
  if (!filter.coll) return result;
  storage::Session session = storage_->NewSession();
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> ids,
                   MatchingIds(session, filter.coll, statement.query.get(), nullptr,
                               statement.limit == 1, filter.expressions, Planner(), filter.collator));
  for (const bson::BsonDoc& id : ids) {
    RETURN_IF_ERROR(query::CheckShutdown());
    ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> removed,
                     RemoveById(session, *catalog_, *filter.coll, id, *filter.matcher));
    result.deleted += removed ? 1 : 0;
  }
  return result;
}

StatusWith<FindAndModifyResult> Engine::FindAndModify(const FindAndModifyParams& params) {
  if (auto view = TimeseriesView(params.db, params.coll)) return FindAndModifyMeasurements(*view, params);
  RETURN_IF_ERROR(RefuseView(params.db, params.coll));
  std::shared_ptr<catalog::CollectionEntry> target = catalog_->Lookup(Namespace(params.db, params.coll));
  const bson::Collator* collator = OperationCollator(params.collation, target.get());
  ASSIGN_OR_RETURN(CommandExpressions expressions,
                   CommandExpressions::Make(params.db, params.let.get(), collator));
  ASSIGN_OR_RETURN(auto matcher, query::Matcher::Parse(params.query.get(), expressions.parser.get(),
                                                       collator));
  RETURN_IF_ERROR(
      query::BindTextQuery(matcher.get(), target ? target->indexes().get() : nullptr).status());
  std::optional<update::UpdateDriver> driver;
  if (params.update) {
    ASSIGN_OR_RETURN(update::UpdateDriver parsed,
                     ParseUpdateDriver(*params.update, params.update_is_pipeline,
                                       params.array_filters, std::nullopt, expressions));
    driver.emplace(std::move(parsed));
  }
  std::optional<query::Projection> projection;
  if (!params.fields.empty()) {
    ASSIGN_OR_RETURN(query::Projection parsed,
                     query::Projection::Parse(params.fields.get(), params.query.get(),
                                              expressions.parser.get()));
    projection.emplace(std::move(parsed));
    // The positional operator needs the filter's match in the returned
    // document, which the updated document may no longer give (MongoDB's
    // getExecutorUpdate refuses it the same way, matched or not).
    if (params.update && params.return_new && projection->has_positional()) {
      return Status(ErrorCode::kBadValue,
                    "cannot use a positional projection and return the new document");
    }
  }
  auto shaped = [&](bson::BsonDoc doc) -> StatusWith<bson::BsonDoc> {
    if (!projection) return doc;
    return projection->Apply(doc.get(), nullptr);
  };

  FindAndModifyResult result;
  storage::Session session = storage_->NewSession();
  std::shared_ptr<catalog::CollectionEntry> coll =
      catalog_->Lookup(Namespace(params.db, params.coll));
  // The first match may change under us between the scan and its write
  // unit; then look again, as MongoDB retries the whole operation.
  for (int attempt = 0; coll && attempt < 100; ++attempt) {
    ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> ids,
                     MatchingIds(session, coll, params.query.get(), params.sort.get(), true,
                                 expressions, Planner(), collator));
    if (ids.empty()) break;
    if (params.remove) {
      ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> removed,
                       RemoveById(session, *catalog_, *coll, ids[0], *matcher));
      if (!removed) continue;
      result.n = 1;
      ASSIGN_OR_RETURN(result.value, shaped(std::move(*removed)));
      return result;
    }
    CollectionWriter::UpdateSpec spec;
    spec.is_pipeline = params.update_is_pipeline;
    if (!driver->is_replacement() && !params.update_is_pipeline) spec.update = params.update->get();
    spec.is_replacement = driver->is_replacement();
    ASSIGN_OR_RETURN(DocumentChange change, UpdateById(session, *catalog_, *coll, IdValueOf(ids[0]),
                                                       matcher.get(), *driver, spec,
                                                       params.bypass_document_validation));
    if (!change.matched) continue;
    result.n = 1;
    result.updated_existing = true;
    ASSIGN_OR_RETURN(result.value, shaped(std::move(params.return_new ? *change.after : *change.before)));
    return result;
  }
  if (params.remove || !params.upsert) return result;
  ASSIGN_OR_RETURN(bson::BsonDoc inserted,
                   UpsertInsert(session, params.db, params.coll, *matcher, *driver,
                                params.bypass_document_validation));
  result.n = 1;
  result.upserted_id = IdOf(inserted.get());
  if (params.return_new) {
    ASSIGN_OR_RETURN(result.value, shaped(std::move(inserted)));
  }
  return result;
}

}  // namespace tigerdoc::engine
