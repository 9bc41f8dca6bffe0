#include "engine/bson/aligned_iter.h"
#include "engine/write/document_rules.h"

#include <string>
#include <vector>

namespace tigerdoc::engine {

namespace {

// InvalidIdField when `it` (an _id) holds a type _id may not have.
Status CheckIdType(const bson_iter_t* it) {
  bson_type_t type = bson_iter_type(it);
  const char* bad = type == BSON_TYPE_ARRAY       ? "array"
                    : type == BSON_TYPE_REGEX     ? "regex"
                    : type == BSON_TYPE_UNDEFINED ? "undefined"
                                                  : nullptr;
  if (bad == nullptr) return Status::OK();
  return Status(ErrorCode::kInvalidIdField, std::string("The '_id' value cannot be of type ") + bad);
}

// True when the first field of `doc` is _id (its iterator left in *first).
bool IdIsFirst(const bson_t* doc, bson_iter_t* first) {
  return bson_iter_init(first, doc) && bson_iter_next(first) &&
         std::string_view(bson_iter_key(first)) == "_id";
}

}  // namespace

StatusWith<bson::BsonDoc> WithIdFirst(const bson_t* doc) {
  ASSIGN_OR_RETURN(std::optional<bson::BsonDoc> rebuilt, RebuiltWithIdFirst(doc));
  if (rebuilt) return std::move(*rebuilt);
  return bson::BsonDoc::CopyOf(doc);
}

StatusWith<std::optional<bson::BsonDoc>> RebuiltWithIdFirst(const bson_t* doc) {
  bson_iter_t first;
  if (IdIsFirst(doc, &first)) {
    // Already first: keep the bytes as they are.
    RETURN_IF_ERROR(CheckIdType(&first));
    return std::optional<bson::BsonDoc>();
  }
  bson_iter_t it;
  const bool has_id = bson_iter_init_find(&it, doc, "_id");
  if (has_id) RETURN_IF_ERROR(CheckIdType(&it));
  bson::BsonDoc out;
  if (has_id) {
    bson_append_iter(out.mutable_get(), "_id", 3, &it);
  } else {
    bson_oid_t oid;
    bson_oid_init(&oid, nullptr);
    bson_append_oid(out.mutable_get(), "_id", 3, &oid);
  }
  bson_iter_t all;
  bson_iter_init(&all, doc);
  while (bson_iter_next(&all)) {
    if (std::string_view(bson_iter_key(&all)) == "_id") continue;
    bson_append_iter(out.mutable_get(), bson_iter_key(&all), -1, &all);
  }
  return std::optional<bson::BsonDoc>(std::move(out));
}

bson::BsonDoc IdOf(const bson_t* doc) {
  bson_iter_t it;
  INVARIANT(bson_iter_init_find(&it, doc, "_id"));
  bson::BsonDoc out;
  bson_append_iter(out.mutable_get(), "", 0, &it);
  return out;
}

bson::BsonDoc Rename(const bson_t* one_value_doc, const char* field) {
  bson::BsonDoc out;
  bson_iter_t it;
  if (bson_iter_init(&it, one_value_doc) && bson_iter_next(&it)) {
    bson_append_iter(out.mutable_get(), field, -1, &it);
  }
  return out;
}

Status CheckStorageDepth(const bson_t* doc, bool is_update) {
  // Each level of nesting takes at least 7 bytes: its length and terminator
  // (5) plus the type and empty key (2) of the element that holds it or,
  // innermost, of an element it holds. A document shorter than
  // 7 x (limit + 1) bytes cannot exceed the limit, so most documents skip
  // the walk and its allocation (#18, bench/README.md).
  constexpr uint32_t kShortestTooDeep = 7 * (kMaxUserStorageDepth + 1);
  if (doc->len < kShortestTooDeep) return Status::OK();
  // One iterator per open level; a level is entered only when its document
  // or array has an element, so empty ones never count.
  std::vector<bson::AlignedIter> stack(1);  // see engine/bson/aligned_iter.h
  if (!bson_iter_init(&stack.back().it, doc)) return Status::OK();  // validated on the wire
  while (!stack.empty()) {
    bson_iter_t& it = stack.back().it;
    if (!bson_iter_next(&it)) {
      stack.pop_back();
      continue;
    }
    if (!BSON_ITER_HOLDS_DOCUMENT(&it) && !BSON_ITER_HOLDS_ARRAY(&it)) continue;
    bson_iter_t child;
    if (!bson_iter_recurse(&it, &child)) continue;
    bson_iter_t probe = child;
    if (!bson_iter_next(&probe)) continue;  // empty
    if (static_cast<int>(stack.size()) + 1 > kMaxUserStorageDepth) {
      const std::string limit = std::to_string(kMaxUserStorageDepth);
      return Status(ErrorCode::kOverflow,
                    is_update ? "Document exceeds maximum nesting depth of " + limit
                              : "cannot insert document because it exceeds " + limit +
                                    " levels of nesting");
    }
    stack.push_back({child});
  }
  return Status::OK();
}

}  // namespace tigerdoc::engine
