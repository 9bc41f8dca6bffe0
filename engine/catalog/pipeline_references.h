#pragma once
// The namespaces of its own database an aggregation pipeline reads besides
// its input: the `from` of every $lookup and $graphLookup and the
// collection of every $unionWith, found in sub-pipelines too ($lookup's and
// $unionWith's `pipeline`, each $facet branch). MongoDB's "involved
// namespaces", which views and their collation rules are checked against.
// A source given as a document ({db, coll}) names another database and is
// left out; so are malformed stages (the pipeline parser reports those).
// Thread-safety: pure function.

#include <bson/bson.h>

#include <string>
#include <vector>

namespace tigerdoc::catalog {

// Collection or view names, in the order met (duplicates kept).
std::vector<std::string> PipelineReferences(const bson_t* pipeline);

}  // namespace tigerdoc::catalog
