#include "patterns/outlier/update_routing.h"

#include <string_view>

#include "engine/bson/shell_string.h"

namespace tigerdoc::patterns::outlier {
namespace {

// Items of the whole array live in two places; these only see one.
Status Refuse(std::string_view op, std::string_view field, std::string_view where,
              std::string_view why) {
  return Status(ErrorCode::kInvalidOptions, "cannot apply " + std::string(op) + " to '" +
                                                std::string(field) + "'" + std::string(where) +
                                                ": " + std::string(why));
}

bool Under(std::string_view field, const std::string& path) {
  return field.size() > path.size() && field.compare(0, path.size(), path) == 0 &&
         field[path.size()] == '.';
}

// $push / $addToSet value: a plain item or {$each: [...]} (modifiers other
// than $each reorder or cut the whole array).
Status CheckAppendValue(std::string_view op, std::string_view field, std::string_view where,
                        const bson_iter_t* value) {
  if (!BSON_ITER_HOLDS_DOCUMENT(value)) return Status::OK();
  bson_iter_t it;
  bson_iter_recurse(value, &it);
  if (!bson_iter_next(&it) || std::string_view(bson_iter_key(&it)) != "$each") {
    return Status::OK();  // a document item
  }
  do {
    const std::string_view key = bson_iter_key(&it);
    if (key != "$each") {
      return Refuse(op, field, where,
                    std::string(op) + " with " + std::string(key) +
                        " reorders or cuts the whole array; only $each can be routed");
    }
  } while (bson_iter_next(&it));
  return Status::OK();
}

}  // namespace

StatusWith<ArrayChange> ClassifyUpdate(const bson_t* update, const std::string& path,
                                       std::string_view where) {
  ArrayChange change = ArrayChange::kNone;
  bson_iter_t ops;
  bson_iter_init(&ops, update);
  while (bson_iter_next(&ops)) {
    const std::string_view op = bson_iter_key(&ops);
    if (!BSON_ITER_HOLDS_DOCUMENT(&ops)) continue;  // the update driver refuses it
    bson_iter_t fields;
    bson_iter_recurse(&ops, &fields);
    while (bson_iter_next(&fields)) {
      const std::string_view field = bson_iter_key(&fields);
      if (op == "$rename" && BSON_ITER_HOLDS_UTF8(&fields)) {
        const std::string_view to = bson_iter_utf8(&fields, nullptr);
        if (to == path || Under(to, path)) {
          return Refuse(op, std::string(field) + "' to '" + std::string(to), where,
                        "$rename onto the array is not routed; use $set of the whole array");
        }
      }
      if (Under(field, path)) {
        return Refuse(op, field, where,
                      "updates of single items or positions ('.N', '.$', '.$[]', '.$[<id>]') see "
                      "only the embedded part; use $pull and $push, or $set of the whole array");
      }
      if (field != path) continue;
      if (op == "$set" || op == "$unset") {
        change = ArrayChange::kReplace;
      } else if (op == "$push") {
        RETURN_IF_ERROR(CheckAppendValue(op, field, where, &fields));
        change = ArrayChange::kAppend;
      } else if (op == "$addToSet") {
        RETURN_IF_ERROR(CheckAppendValue(op, field, where, &fields));
        change = ArrayChange::kAddToSet;
      } else if (op == "$pull" || op == "$pullAll") {
        change = ArrayChange::kPull;
      } else if (op == "$setOnInsert") {
        continue;  // applies to an upsert's insert only
      } else if (op == "$pop") {
        return Refuse(op, field, where,
                      "$pop takes the first or last item of the whole array, which may live in "
                      "the overflow; use $pull with a condition");
      } else {
        return Refuse(op, field, where, std::string(op) + " of the whole array is not routed; use $set of "
                                     "the whole array, $push, $addToSet, $pull or $pullAll");
      }
    }
  }
  return change;
}

bson::BsonDoc PullForChunk(const bson_t* update, const std::string& path) {
  bson::BsonDoc out;
  bson_iter_t ops;
  bson_iter_init(&ops, update);
  while (bson_iter_next(&ops)) {
    const std::string_view op = bson_iter_key(&ops);
    if ((op != "$pull" && op != "$pullAll") || !BSON_ITER_HOLDS_DOCUMENT(&ops)) continue;
    bson_iter_t field;
    if (!bson_iter_recurse(&ops, &field) || !bson_iter_find(&field, path.c_str())) continue;
    bson_t sub;
    bson_append_document_begin(out.mutable_get(), op.data(), static_cast<int>(op.size()), &sub);
    bson_append_iter(&sub, "items", 5, &field);
    bson_append_document_end(out.mutable_get(), &sub);
  }
  return out;
}

}  // namespace tigerdoc::patterns::outlier
