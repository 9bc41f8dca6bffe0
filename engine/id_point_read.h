#pragma once
// Point reads by _id without a query plan.
//
// A filter that is exactly {_id: v}, with v a string, an integer, a finite
// double or an ObjectId, can match one document at most, and on a
// collection sharded by _id its record key is keystring(v) twice: one
// WiredTiger search finds it. Building, running and tearing down a
// PlanExecutor for that cost more than the read itself (issue #18,
// bench/README.md "Server instructions per request"). Updates by _id
// (engine_writes.cc) and finds by _id (Engine::Find) share the recognition.
// Other values keep the planner: null matches a missing field, regexes,
// arrays and documents have their own semantics, NaN and collations their
// own equality.
//
// Thread-safety: stateless functions.

#include <optional>
#include <vector>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"
#include "engine/bson/collator.h"
#include "engine/catalog/catalog.h"
#include "engine/ops.h"
#include "engine/storage/storage_engine.h"

namespace tigerdoc::engine {

// {_id: v} when `filter` is exactly that with v of the types above, else
// nullopt.
std::optional<bson::BsonDoc> IdEqualityOf(const bson_t* filter);
// The same recognition without a copy: true and *id on v inside `filter`
// (valid while its bytes live) when `filter` is exactly {_id: v} with v of
// the types above.
bool FindIdEquality(const bson_t* filter, bson_iter_t* id);
// True when stored document `doc` has an _id equal to the value `id` (an
// element FindIdEquality accepted) as $eq compares: what the filter {_id: v}
// asks of the document a point read by v returned.
bool StoredIdEquals(const bson_t* doc, const bson_iter_t& id);

// The answer of `params` as a point read: the document (or none) whose _id
// the filter names. nullopt when the find needs the planner: an option
// beyond filter/limit/singleBatch/batchSize >= 1, a collation (given or the
// collection's), a collection sharded by another key or with secondary
// indexes (the planner weighs those), or another filter. Records one use
// of the _id index, as the plan's point read does.
StatusWith<std::optional<std::vector<bson::BsonDoc>>> FindByIdWithoutPlan(
    storage::StorageEngine& storage, const catalog::CollectionEntry& coll, const FindParams& params,
    const bson::Collator* collator);

// Gives a finished batch's vector back for this thread's next point read:
// a vector of BsonDoc allocates 128-byte-aligned storage (a memalign and
// its free, about 1,000 instructions of a find by _id; issue #18,
// bench/README.md "CPU per find, round 5"). Kept only when it holds room
// for a few documents and this thread keeps none yet, so an idle thread
// holds at most half a kilobyte; *docs is left empty either way.
void RecycleBatch(std::vector<bson::BsonDoc>* docs);

}  // namespace tigerdoc::engine
