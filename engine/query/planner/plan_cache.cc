#include "engine/query/planner/plan_cache.h"

#include "engine/bson/compare.h"

namespace tigerdoc::query::planner {
namespace {

// Field names and structure kept, scalars replaced by "#<canonical rank>".
void AppendShape(const bson_t* doc, bool is_array, std::string* out) {
  out->push_back(is_array ? '[' : '{');
  bson_iter_t it;
  if (bson_iter_init(&it, doc)) {
    while (bson_iter_next(&it)) {
      if (!is_array) {
        out->append(bson_iter_key(&it));
        out->push_back(':');
      }
      if (BSON_ITER_HOLDS_DOCUMENT(&it) || BSON_ITER_HOLDS_ARRAY(&it)) {
        uint32_t len;
        const uint8_t* data;
        bool array = BSON_ITER_HOLDS_ARRAY(&it);
        if (array) {
          bson_iter_array(&it, &len, &data);
        } else {
          bson_iter_document(&it, &len, &data);
        }
        bson_t sub;
        if (bson_init_static(&sub, data, len)) AppendShape(&sub, array, out);
      } else {
        out->push_back('#');
        out->append(std::to_string(bson::CanonicalTypeRank(bson_iter_type(&it))));
      }
      out->push_back(',');
    }
  }
  out->push_back(is_array ? ']' : '}');
}

std::string Exact(const bson_t* doc) {
  if (doc == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(bson_get_data(doc)), doc->len);
}

}  // namespace

std::string PlanCache::ShapeOf(const bson_t* filter, const bson_t* sort, const bson_t* projection,
                               const std::string& hint) {
  std::string out;
  if (filter != nullptr) AppendShape(filter, false, &out);
  out += '\x01' + Exact(sort) + '\x01' + Exact(projection) + '\x01' + hint;
  return out;
}

std::optional<std::string> PlanCache::Lookup(const std::string& collection, const std::shared_ptr<const void>& index_set,
                                             const std::string& shape) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto coll = collections_.find(collection);
  if (coll == collections_.end()) return std::nullopt;
  if (coll->second.index_set.lock() != index_set) {
    entries_ -= coll->second.winners.size();
    collections_.erase(coll);
    return std::nullopt;
  }
  auto hit = coll->second.winners.find(shape);
  if (hit == coll->second.winners.end()) return std::nullopt;
  return hit->second;
}

void PlanCache::Store(const std::string& collection, const std::shared_ptr<const void>& index_set,
                      const std::string& shape, const std::string& winner) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (entries_ >= kMaxEntries) {
    collections_.clear();
    entries_ = 0;
  }
  PerCollection& coll = collections_[collection];
  if (coll.index_set.lock() != index_set) {
    entries_ -= coll.winners.size();
    coll.winners.clear();
    coll.index_set = index_set;
  }
  auto [it, inserted] = coll.winners.insert_or_assign(shape, winner);
  (void)it;
  if (inserted) ++entries_;
}

void PlanCache::Clear(const std::string& collection) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto coll = collections_.find(collection);
  if (coll == collections_.end()) return;
  entries_ -= coll->second.winners.size();
  collections_.erase(coll);
}

size_t PlanCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_;
}

}  // namespace tigerdoc::query::planner
