// Engine::Distinct: the distinct values of one field, as MongoDB's distinct
// command computes them: values gathered along the path (through arrays of
// documents), an array at the end of the path contributing its elements
// (one level), missing fields contributing nothing, duplicates compared in
// BSON order (so 1 and 1.0 are one value), results sorted in BSON order.
// An index led by the key (never an array there) whose bounds express the
// whole filter serves it by a DISTINCT_SCAN: one entry per value, no fetch.

#include <chrono>
#include <set>
#include <string>

#include "engine/bson/compare.h"
#include "engine/bson/field_path.h"
#include "engine/command_expressions.h"
#include "engine/engine.h"
#include "engine/operation_collation.h"
#include "engine/query/deadline.h"
#include "engine/query/plan_executor.h"

namespace tigerdoc::engine {
namespace {

// MongoDB refuses a distinct whose result would not fit in a reply.
constexpr int64_t kMaxDistinctBytes = 16 * 1024 * 1024;

bson::BsonDoc OneValue(const bson_iter_t* value) {
  bson::BsonDoc out;
  bson_append_iter(out.mutable_get(), "", 0, value);
  return out;
}

int CompareOneValueDocs(const bson::BsonDoc& a, const bson::BsonDoc& b,
                        const bson::Collator* collator) {
  bson_iter_t ia, ib;
  bson_iter_init(&ia, a.get());
  bson_iter_next(&ia);
  bson_iter_init(&ib, b.get());
  bson_iter_next(&ib);
  return bson::CompareValues(&ia, &ib, collator);
}

}  // namespace

StatusWith<std::vector<bson::BsonDoc>> Engine::Distinct(const DistinctParams& params) {
  if (params.key.empty()) {
    return Status(ErrorCode::kBadValue, "FieldPath cannot be constructed with empty string");
  }
  // Values equal under the operation's collation are one value (the first
  // met is reported), and the result is in its order.
  std::shared_ptr<catalog::CollectionEntry> coll = catalog_->Lookup(Namespace(params.db, params.coll));
  std::shared_ptr<const catalog::ViewDefinition> view =
      coll != nullptr ? nullptr : catalog_->LookupView(Namespace(params.db, params.coll));
  const bson::Collator* collator = OperationCollator(params.collation, coll.get());
  if (view != nullptr) {
    ASSIGN_OR_RETURN(collator, ViewOperationCollator(params.collation, *view));
  }
  struct BsonOrder {
    const bson::Collator* collator;
    bool operator()(const bson::BsonDoc& a, const bson::BsonDoc& b) const {
      return CompareOneValueDocs(a, b, collator) < 0;
    }
  };
  std::set<bson::BsonDoc, BsonOrder> distinct(BsonOrder{collator});
  int64_t bytes = 0;
  auto add = [&](const bson_iter_t* value) {
    bson::BsonDoc one = OneValue(value);
    int64_t size = static_cast<int64_t>(one.size());
    if (distinct.insert(std::move(one)).second) bytes += size;
  };
  bson::FieldPath path(params.key);
  auto add_values_of = [&](const bson::BsonDoc& doc) {
    bson::VisitPath(doc.get(), path, bson::LeafArrays::kNoTraversal, [&](const bson_iter_t* value) {
      if (value == nullptr) return true;  // missing
      if (BSON_ITER_HOLDS_ARRAY(value)) {
        bson_iter_t element;
        bson_iter_recurse(value, &element);
        while (bson_iter_next(&element)) add(&element);
      } else {
        add(value);
      }
      return true;
    });
  };
  auto sorted_values = [&] {
    std::vector<bson::BsonDoc> values;
    values.reserve(distinct.size());
    for (auto it = distinct.begin(); it != distinct.end();) {
      values.push_back(std::move(distinct.extract(it++).value()));
    }
    return values;
  };
  if (view != nullptr) {
    // A view: its documents, then the same collection of values.
    ASSIGN_OR_RETURN(std::vector<bson::BsonDoc> docs,
                     DocumentsOfView(params));
    for (const bson::BsonDoc& doc : docs) add_values_of(doc);
    if (bytes > kMaxDistinctBytes) {
      return Status(ErrorCode::kLocation17217, "distinct too big, 16mb cap");
    }
    return sorted_values();
  }
  // The filter is parsed (and its errors reported) even when the
  // collection does not exist; a missing collection reads as empty.
  query::FindSpec spec;
  spec.filter = params.filter.Copy();
  spec.collator = collator;
  if (collator != nullptr) {
    // $expr in the query compares under the collation too.
    ASSIGN_OR_RETURN(CommandExpressions expressions,
                     CommandExpressions::Make(params.db, nullptr, collator));
    spec.expressions = std::move(expressions.parser);
  }
  spec.hint = ToIndexHint(params.hint);
  spec.distinct_key = params.key;
  spec.hint_index = params.hint_index.Copy();
  spec.deadline = query::DeadlineAfter(std::chrono::steady_clock::now(), params.max_time_ms);
  ASSIGN_OR_RETURN(auto exec, query::PlanExecutor::Make(coll, std::move(spec), Planner()));
  exec->RecordIndexUse();
  storage::Session session = storage_->NewSession();
  bool exhausted = false;
  while (!exhausted) {
    std::vector<bson::BsonDoc> docs;
    RETURN_IF_ERROR(exec->FillBatch(session, 1000, kMaxBatchBytes, &docs, &exhausted));
    for (const bson::BsonDoc& doc : docs) add_values_of(doc);
    if (bytes > kMaxDistinctBytes) {
      return Status(ErrorCode::kLocation17217, "distinct too big, 16mb cap");
    }
  }
  return sorted_values();
}

}  // namespace tigerdoc::engine
