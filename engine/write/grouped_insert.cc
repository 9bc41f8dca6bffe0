// InsertInGroups: groups of prepared documents, each inserted whole or
// retried one by one.

#include "engine/write/grouped_insert.h"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <utility>

namespace tigerdoc::engine {

void PreparedInsert::View(bson_t* out) const {
  const std::string_view b = bytes();
  INVARIANT(bson_init_static(out, reinterpret_cast<const uint8_t*>(b.data()), b.size()));
}

std::vector<Status> InsertInGroups(std::span<const std::string_view> docs, size_t group_size,
                                   bool ordered, const PrepareInsert& prepare,
                                   const InsertGroup& insert) {
  std::vector<Status> results;
  results.reserve(docs.size());
  size_t next = 0;
  // One vector serves every group (a PreparedInsert is over-aligned: one
  // allocation per batch rather than per group). A one-document insert
  // (insert_one) keeps its document inline: the aligned allocation was 700
  // instructions of its request.
  boost::container::small_vector<PreparedInsert, 1> group;
  group.reserve(std::min(group_size, docs.size()));
  while (next < docs.size()) {
    // A group: consecutive documents that prepare cleanly.
    group.clear();
    Status prepare_error;
    while (next < docs.size() && group.size() < group_size) {
      StatusWith<PreparedInsert> prepared = prepare(docs[next]);
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
