// The multikey merge (multikey_merge.h): a union that only grows, field by
// field, that marks the whole index multikey and reports whether it adds.

#include "engine/index/multikey_merge.h"

#include <gtest/gtest.h>

#include "engine/bson/bson_doc.h"

namespace tigerdoc::index {
namespace {

using Paths = std::set<std::string>;

IndexSpec TwoFieldSpec() {
  auto spec =
      ParseIndexSpec(bson::BsonDoc::FromJson(R"({"key": {"a.b": 1, "c": 1}, "name": "x"})").get());
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return std::move(spec).value();
}

TEST(MultikeyMergeTest, MarkSetsTheWholeIndexFlagAndAddsPathsPerField) {
  IndexSpec spec = TwoFieldSpec();
  ASSERT_FALSE(spec.multikey);
  MarkMultikey(spec, MultikeyPaths{{1}, {}}, {});
  EXPECT_TRUE(spec.multikey);
  EXPECT_EQ(spec.multikey_paths, (MultikeyPaths{{1}, {}}));
  MarkMultikey(spec, MultikeyPaths{{0}, {0}}, {});
  EXPECT_EQ(spec.multikey_paths, (MultikeyPaths{{0, 1}, {0}}));  // union, in component order
  EXPECT_EQ(spec.multikey_paths.size(), spec.fields.size());
}

TEST(MultikeyMergeTest, MergingAgainAddsNoDuplicates) {
  IndexSpec spec = TwoFieldSpec();
  MarkMultikey(spec, MultikeyPaths{{0, 1}, {0}}, {});
  IndexSpec again = spec.Clone();
  MarkMultikey(again, MultikeyPaths{{1}, {0}}, {});
  EXPECT_EQ(again.multikey_paths, spec.multikey_paths);
}

TEST(MultikeyMergeTest, ExtendsOnlyWhenSomethingIsNew) {
  IndexSpec spec = TwoFieldSpec();
  // A document through arrays on no path still makes a plain index multikey.
  EXPECT_TRUE(ExtendsMultikey(spec, MultikeyPaths{{}, {}}, {}));
  MarkMultikey(spec, MultikeyPaths{{}, {}}, {});
  EXPECT_TRUE(spec.multikey);
  EXPECT_FALSE(ExtendsMultikey(spec, MultikeyPaths{{}, {}}, {}));
  EXPECT_TRUE(ExtendsMultikey(spec, MultikeyPaths{{}, {0}}, {}));
  MarkMultikey(spec, MultikeyPaths{{}, {0}}, {});
  EXPECT_FALSE(ExtendsMultikey(spec, MultikeyPaths{{}, {0}}, {}));
  EXPECT_FALSE(ExtendsMultikey(spec, MultikeyPaths{}, {}));
  EXPECT_TRUE(ExtendsMultikey(spec, MultikeyPaths{{1}, {0}}, {}));
}

TEST(MultikeyMergeTest, WildcardPathsMergeAsASortedUnion) {
  IndexSpec spec = TwoFieldSpec();
  MarkMultikey(spec, {}, Paths{"b", "a.c"});
  MarkMultikey(spec, {}, Paths{"a.c", "z"});
  EXPECT_EQ(spec.wildcard_multikey_paths, (Paths{"a.c", "b", "z"}));
  EXPECT_FALSE(ExtendsMultikey(spec, {}, Paths{"b", "z"}));
  EXPECT_TRUE(ExtendsMultikey(spec, {}, Paths{"a"}));
}

TEST(MultikeyMergeTest, PersistedRecordGrowsFromNothing) {
  // The catalog's record of persisted paths starts empty for a new index.
  MultikeyPaths persisted;
  Paths persisted_wildcard;
  EXPECT_FALSE(AddsArrayPaths(persisted, persisted_wildcard, MultikeyPaths{{}, {}}, {}));
  EXPECT_TRUE(AddsArrayPaths(persisted, persisted_wildcard, MultikeyPaths{{}, {2}}, {}));
  EXPECT_TRUE(AddsArrayPaths(persisted, persisted_wildcard, {}, Paths{"w"}));
  MergeArrayPaths(persisted, persisted_wildcard, MultikeyPaths{{}, {2}}, Paths{"w"});
  EXPECT_EQ(persisted, (MultikeyPaths{{}, {2}}));
  EXPECT_EQ(persisted_wildcard, Paths{"w"});
  EXPECT_FALSE(AddsArrayPaths(persisted, persisted_wildcard, MultikeyPaths{{}, {2}}, Paths{"w"}));
  EXPECT_TRUE(AddsArrayPaths(persisted, persisted_wildcard, MultikeyPaths{{}, {2}, {0}}, {}));
}

}  // namespace
}  // namespace tigerdoc::index
