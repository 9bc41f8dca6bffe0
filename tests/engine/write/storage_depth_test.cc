// CheckStorageDepth (engine/write/document_rules.h) at the limit of 180
// levels, with the shortest documents that reach it: empty keys and a null
// innermost value, 7 bytes per level. Documents shorter than 7 x 181 bytes
// skip the walk (they cannot be too deep), so the shortest document one
// level too deep, exactly 7 x 181 bytes, must still be walked and refused.

#include <gtest/gtest.h>

#include "engine/bson/bson_doc.h"
#include "engine/write/document_rules.h"

namespace tigerdoc::engine {
namespace {

// `levels` documents nested through empty keys; the innermost holds {"": null}.
bson::BsonDoc ShortestNested(int levels) {
  bson::BsonDoc inner;
  BSON_APPEND_NULL(inner.mutable_get(), "");
  for (int level = 1; level < levels; ++level) {
    bson::BsonDoc outer;
    BSON_APPEND_DOCUMENT(outer.mutable_get(), "", inner.get());
    inner = std::move(outer);
  }
  return inner;
}

TEST(StorageDepthTest, ShortestDocumentsAtBelowAndAboveTheLimit) {
  for (int levels : {kMaxUserStorageDepth - 1, kMaxUserStorageDepth}) {
    bson::BsonDoc doc = ShortestNested(levels);
    EXPECT_EQ(doc.size(), 7u * static_cast<uint32_t>(levels));
    EXPECT_TRUE(CheckStorageDepth(doc.get(), false).ok()) << levels << " levels";
  }
  for (int levels : {kMaxUserStorageDepth + 1, kMaxUserStorageDepth + 50}) {
    bson::BsonDoc doc = ShortestNested(levels);
    EXPECT_EQ(doc.size(), 7u * static_cast<uint32_t>(levels));
    Status st = CheckStorageDepth(doc.get(), false);
    EXPECT_EQ(st.code(), ErrorCode::kOverflow) << levels << " levels";
    EXPECT_EQ(st.reason(), "cannot insert document because it exceeds 180 levels of nesting");
    EXPECT_EQ(CheckStorageDepth(doc.get(), true).reason(),
              "Document exceeds maximum nesting depth of 180");
  }
}

}  // namespace
}  // namespace tigerdoc::engine
