// Engine: views. A view is a catalog row naming a collection (or another
// view) and a pipeline; reading it runs that pipeline:
//
//   find {filter, sort, skip, limit, projection} on view v (viewOn c)
//     => aggregate c [ <pipeline of v's innermost view> ... <pipeline of v>,
//                      {$match: filter}, {$sort: sort}, {$skip: n},
//                      {$limit: n}, {$project: projection} ]
//
// (MongoDB's translation of find into an aggregation, stages only when the
// option is given); count ends with {$count: "count"}, distinct collects
// the key's values from the view's documents (those of {$match: query}) as
// Distinct does from a scan. Explain of find / count / distinct on a view
// is the aggregate explain of that pipeline after the view's, as MongoDB
// answers it.
// Writes and index commands on a view fail with CommandNotSupportedOnView.

#include <string>

#include "engine/agg/expression_context.h"
#include "engine/agg/pipeline.h"
#include "engine/aggregate_cursor.h"
#include "engine/engine.h"
#include "engine/operation_collation.h"

namespace tigerdoc::engine {
namespace {

// Checks a view's pipeline as aggregate would parse it. $lookup and the
// like need a resolver to parse; this one is never asked to open anything.
class ParseOnlyResolver : public agg::CollectionResolver {
 public:
  StatusWith<std::unique_ptr<agg::DocumentSource>> Open(std::string_view, std::string_view,
                                                        const bson_t*) override {
    return Status(ErrorCode::kInternalError, "a view definition is parsed, not run");
  }
};

Status ValidateViewPipeline(const CreateViewParams& params) {
  bson_iter_t it;
  bson_iter_init(&it, params.pipeline.get());
  while (bson_iter_next(&it)) {
    bson_iter_t stage;
    if (BSON_ITER_HOLDS_DOCUMENT(&it) && bson_iter_recurse(&it, &stage) && bson_iter_next(&stage)) {
      std::string_view name = bson_iter_key(&stage);
      if (name == "$out" || name == "$merge") {
        return Status(ErrorCode::kOptionNotSupportedOnView,
                      std::string(name) + " cannot be used in a view definition");
      }
    }
  }
  ParseOnlyResolver resolver;
  agg::ExpressionContext ctx;
  ctx.db = params.db;
  ctx.resolver = &resolver;
  return agg::Pipeline::Parse(params.pipeline.get(), ctx).status();
}

catalog::ViewDefinition DefinitionOf(const CreateViewParams& params) {
  catalog::ViewDefinition view;
  view.ns = Namespace(params.db, params.name);
  view.db = params.db;
  view.name = params.name;
  view.view_on = params.view_on;
  view.pipeline = params.pipeline.Copy();
  view.collator = params.collator;
  return view;
}

// Appends {<name>: <value doc>} as the next stage of `stages`.
void AppendStage(bson_t* stages, uint32_t* index, const char* name, const bson_t* value) {
  std::string key = std::to_string((*index)++);
  bson_t stage;
  bson_append_document_begin(stages, key.c_str(), -1, &stage);
  BSON_APPEND_DOCUMENT(&stage, name, value);
  bson_append_document_end(stages, &stage);
}

void AppendInt64Stage(bson_t* stages, uint32_t* index, const char* name, int64_t value) {
  std::string key = std::to_string((*index)++);
  bson_t stage;
  bson_append_document_begin(stages, key.c_str(), -1, &stage);
  BSON_APPEND_INT64(&stage, name, value);
  bson_append_document_end(stages, &stage);
}

}  // namespace

Status Engine::CreateView(const CreateViewParams& params) {
  RETURN_IF_ERROR(catalog::Catalog::ValidateNamespace(params.db, params.name));
  if (params.view_on.empty()) {
    return Status(ErrorCode::kBadValue, "'viewOn' cannot be empty");
  }
  RETURN_IF_ERROR(catalog::Catalog::ValidateCollectionName(params.view_on));
  RETURN_IF_ERROR(ValidateViewPipeline(params));
  return catalog_->CreateView(DefinitionOf(params));
}

Status Engine::ModifyView(const CreateViewParams& params) {
  RETURN_IF_ERROR(catalog::Catalog::ValidateCollectionName(params.view_on));
  RETURN_IF_ERROR(ValidateViewPipeline(params));
  return catalog_->ModifyView(DefinitionOf(params));
}

Status Engine::RefuseView(std::string_view db, std::string_view coll) const {
  std::string ns = Namespace(db, coll);
  if (catalog_->LookupView(ns) == nullptr) return Status::OK();
  return Status(ErrorCode::kCommandNotSupportedOnView,
                "Namespace " + ns + " is a view, not a collection");
}

StatusWith<Engine::ResolvedView> Engine::ResolveView(std::string_view db,
                                                     std::string_view view_name) const {
  // Outermost first while walking down; the pipelines run innermost first.
  std::vector<std::shared_ptr<const catalog::ViewDefinition>> chain;
  std::string name(view_name);
  while (auto view = catalog_->LookupView(Namespace(db, name))) {
    if (static_cast<int>(chain.size()) >= catalog::kMaxViewDepth) {
      return Status(ErrorCode::kViewDepthLimitExceeded,
                    "View depth too deep or view cycle detected; maximum depth is " +
                        std::to_string(catalog::kMaxViewDepth));
    }
    chain.push_back(view);
    name = view->view_on;
  }
  ResolvedView resolved;
  resolved.coll = name;
  uint32_t index = 0;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    bson_iter_t stage;
    bson_iter_init(&stage, (*it)->pipeline.get());
    while (bson_iter_next(&stage)) {
      std::string key = std::to_string(index++);
      bson_append_iter(resolved.pipeline.mutable_get(), key.c_str(), -1, &stage);
    }
  }
  return resolved;
}

StatusWith<AggregateParams> Engine::FindAsAggregate(const FindParams& params) {
  // What MongoDB refuses when it turns a find on a view into an aggregation.
  const std::pair<bool, const char*> unsupported[] = {
      {params.show_record_id, "showRecordId"}, {params.return_key, "returnKey"},
      {params.tailable, "tailable"},           {!params.min.empty(), "min"},
      {!params.max.empty(), "max"},            {params.no_cursor_timeout, "noCursorTimeout"},
  };
  for (const auto& [given, name] : unsupported) {
    if (given) {
      return Status(ErrorCode::kInvalidPipelineOperator,
                    std::string("Option ") + name + " not supported in aggregation.");
    }
  }
  AggregateParams aggregate;
  aggregate.db = params.db;
  aggregate.coll = params.coll;
  aggregate.allow_disk_use = params.allow_disk_use;
  aggregate.let = params.let.Copy();
  aggregate.batch_size = params.batch_size;
  aggregate.hint = params.hint;
  aggregate.hint_index = params.hint_index.Copy();
  aggregate.max_time_ms = params.max_time_ms;
  aggregate.collation = params.collation;
  bson_t* stages = aggregate.pipeline.mutable_get();
  uint32_t index = 0;
  if (!params.filter.empty()) AppendStage(stages, &index, "$match", params.filter.get());
  if (!params.sort.empty()) AppendStage(stages, &index, "$sort", params.sort.get());
  if (params.skip > 0) AppendInt64Stage(stages, &index, "$skip", params.skip);
  if (params.limit > 0) AppendInt64Stage(stages, &index, "$limit", params.limit);
  if (!params.projection.empty()) AppendStage(stages, &index, "$project", params.projection.get());
  return aggregate;
}

AggregateParams Engine::CountAsAggregate(std::string_view db, std::string_view coll, const bson_t* filter,
                                         int64_t skip, int64_t limit) {
  AggregateParams aggregate;
  aggregate.db = std::string(db);
  aggregate.coll = std::string(coll);
  bson_t* stages = aggregate.pipeline.mutable_get();
  uint32_t index = 0;
  if (!bson_empty(filter)) AppendStage(stages, &index, "$match", filter);
  if (skip > 0) AppendInt64Stage(stages, &index, "$skip", skip);
  if (limit > 0) AppendInt64Stage(stages, &index, "$limit", limit);
  std::string key = std::to_string(index++);
  bson_t stage;
  bson_append_document_begin(stages, key.c_str(), -1, &stage);
  BSON_APPEND_UTF8(&stage, "$count", "count");
  bson_append_document_end(stages, &stage);
  return aggregate;
}

AggregateParams Engine::MatchAsAggregate(std::string_view db, std::string_view coll, const bson_t* filter) {
  AggregateParams aggregate;
  aggregate.db = std::string(db);
  aggregate.coll = std::string(coll);
  uint32_t index = 0;
  if (!bson_empty(filter)) AppendStage(aggregate.pipeline.mutable_get(), &index, "$match", filter);
  return aggregate;
}

StatusWith<CursorBatch> Engine::FindOnView(const FindParams& params) {
  ASSIGN_OR_RETURN(AggregateParams aggregate, FindAsAggregate(params));
  ASSIGN_OR_RETURN(CursorBatch batch, Aggregate(std::move(aggregate)));
  if (params.single_batch && batch.cursor_id != 0) {
    cursors_->Kill(batch.cursor_id, batch.ns);
    batch.cursor_id = 0;
  }
  return batch;
}

StatusWith<int64_t> Engine::CountOnView(const CountParams& params) {
  AggregateParams aggregate =
      CountAsAggregate(params.db, params.coll, params.filter.get(), params.skip, params.limit);
  aggregate.collation = params.collation;
  aggregate.hint = params.hint;
  aggregate.hint_index = params.hint_index.Copy();
  aggregate.max_time_ms = params.max_time_ms;
  ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> docs, AggregateAll(std::move(aggregate)));
  if (docs.empty()) return int64_t{0};
  bson_iter_t it;
  if (!bson_iter_init_find(&it, docs[0].get(), "count")) return int64_t{0};
  return bson_iter_as_int64(&it);
}

StatusWith<bson::BsonDoc> Engine::ExplainOnView(const FindParams& params, ExplainVerbosity verbosity) {
  AggregateParams aggregate;
  switch (params.explained) {
    case ExplainedCommand::kFind: {
      ASSIGN_OR_RETURN(aggregate, FindAsAggregate(params));
      return ExplainAggregate(std::move(aggregate), verbosity);
    }
    case ExplainedCommand::kCount:
      aggregate = CountAsAggregate(params.db, params.coll, params.filter.get(), params.skip, params.limit);
      break;
    case ExplainedCommand::kDistinct:
      aggregate = MatchAsAggregate(params.db, params.coll, params.filter.get());
      break;
  }
  aggregate.collation = params.collation;
  aggregate.hint = params.hint;
  aggregate.hint_index = params.hint_index.Copy();
  aggregate.max_time_ms = params.max_time_ms;
  return ExplainAggregate(std::move(aggregate), verbosity);
}

StatusWith<std::vector<bson::BsonDoc>> Engine::DocumentsOfView(const DistinctParams& params) {
  AggregateParams aggregate = MatchAsAggregate(params.db, params.coll, params.filter.get());
  aggregate.collation = params.collation;
  aggregate.hint = params.hint;
  aggregate.hint_index = params.hint_index.Copy();
  aggregate.max_time_ms = params.max_time_ms;
  return AggregateAll(std::move(aggregate));
}

}  // namespace tigerdoc::engine
