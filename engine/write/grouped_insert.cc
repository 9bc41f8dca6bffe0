// InsertInGroups: groups of prepared documents, each inserted whole or
// retried one by one.

#include "engine/write/grouped_insert.h"

#include <algorithm>
#include <utility>

namespace tigerdoc::engine {

std::vector<Status> InsertInGroups(std::vector<bson::BsonDoc>& docs, size_t group_size,
                                   bool ordered, const PrepareInsert& prepare,
                                   const InsertGroup& insert) {
  std::vector<Status> results;
  results.reserve(docs.size());
  size_t next = 0;
  while (next < docs.size()) {
    // A group: consecutive documents that prepare cleanly.
    std::vector<bson::BsonDoc> group;
    group.reserve(std::min(group_size, docs.size() - next));
    Status prepare_error;
    while (next < docs.size() && group.size() < group_size) {
      StatusWith<bson::BsonDoc> prepared = prepare(docs[next]);
      if (!prepared.ok()) {
        prepare_error = prepared.status();
        break;
      }
      group.push_back(std::move(prepared).value());
      ++next;
    }
    Status group_status = group.empty() ? Status::OK() : insert(group.data(), group.size());
    if (group_status.ok()) {
      results.insert(results.end(), group.size(), Status::OK());
    } else if (group.size() == 1) {
      results.push_back(group_status);
      if (ordered) return results;
    } else {
      // Something in the group failed and the whole group rolled back:
      // insert its documents one by one to find which.
      for (size_t i = 0; i < group.size(); ++i) {
        Status one = insert(&group[i], 1);
        results.push_back(one);
        if (!one.ok() && ordered) return results;
      }
    }
    if (!prepare_error.ok()) {
      results.push_back(prepare_error);
      ++next;
      if (ordered) return results;
    }
  }
  return results;
}

}  // namespace tigerdoc::engine
