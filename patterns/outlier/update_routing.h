#pragma once
// Routing an operator update on a document whose array `path` is split
// between the document (embedded part) and overflow chunks: which change
// it makes to the whole array, or why it cannot be routed.
//
//   $push {path: v} / {path: {$each: [...]}}           kAppend   (to the end of the whole array)
//   $addToSet {path: v} / {path: {$each: [...]}}       kAddToSet (items in neither part)
//   $pull / $pullAll {path: ...}                       kPull     (from both parts)
//   $set / $unset {path: ...}                          kReplace  (the whole array)
//   anything else naming path or a field under it      refused: InvalidOptions (72)
//     ($pop, $push with $sort/$slice/$position, $rename, $inc/$min/$max/... of the array,
//      "path.5", "path.$", "path.$[]", "path.$[id]", "path.x.y")
//   fields elsewhere                                   kNone
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::patterns::outlier {

enum class ArrayChange { kNone, kAppend, kAddToSet, kPull, kReplace };

// The change `update` (an operator document) makes to `path`. A refusal is
// InvalidOptions: "cannot apply <op> to '<field>'<where>: <why and what to
// use instead>", `where` naming the document (may be empty).
StatusWith<ArrayChange> ClassifyUpdate(const bson_t* update, const std::string& path,
                                       std::string_view where = {});

// The $pull / $pullAll of `update` on `path` rewritten for an overflow
// chunk: {$pull: {items: <condition>}} (same condition, so the engine's
// own update driver removes the same items from a chunk's `items`).
// REQUIRES: ClassifyUpdate(update, path) is kPull.
bson::BsonDoc PullForChunk(const bson_t* update, const std::string& path);

}  // namespace tigerdoc::patterns::outlier
