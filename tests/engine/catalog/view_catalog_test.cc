// Views in the catalog: creation rules, cycles, depth, drop, persistence.

#include <gtest/gtest.h>

#include "engine/catalog/catalog.h"
#include "tests/engine/catalog/open_catalog.h"
#include "tests/engine/query/test_json.h"
#include "tests/engine/storage/in_memory_storage.h"
#include "tests/engine/temp_dir.h"

namespace tigerdoc::catalog {
namespace {

ViewDefinition View(const std::string& name, const std::string& on,
                    const char* pipeline_json = R"({"0": {"%limit": 5}})") {
  ViewDefinition v;
  v.db = "test";
  v.name = name;
  v.ns = "test." + name;
  v.view_on = on;
  v.pipeline = testing_json::Json(pipeline_json);
  return v;
}

TEST(ViewCatalogTest, CreateLookupListAndDrop) {
  auto engine = storage::OpenInMemoryStorage();
  auto catalog = OpenCatalog(engine.get());
  CreateCollectionRequest coll;
  coll.db = "test";
  coll.name = "c";
  ASSERT_TRUE(catalog->CreateCollection(coll).ok());
  ASSERT_TRUE(catalog->CreateView(View("v", "c")).ok());
  auto v = catalog->LookupView("test.v");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(v->view_on, "c");
  EXPECT_EQ(catalog->Lookup("test.v"), nullptr);
  EXPECT_EQ(catalog->ListViews("test").size(), 1u);
  EXPECT_EQ(catalog->ListViews("other").size(), 0u);

  // The name is taken, by a view or a collection, both ways.
  EXPECT_EQ(catalog->CreateView(View("v", "c")).code(), ErrorCode::kNamespaceExists);
  EXPECT_EQ(catalog->CreateView(View("c", "x")).code(), ErrorCode::kNamespaceExists);
  coll.name = "v";
  EXPECT_EQ(catalog->CreateCollection(coll).status().code(), ErrorCode::kNamespaceExists);

  ASSERT_TRUE(catalog->DropCollection("test.v").ok());
  EXPECT_EQ(catalog->LookupView("test.v"), nullptr);
  EXPECT_EQ(catalog->DropCollection("test.v").code(), ErrorCode::kNamespaceNotFound);
}

TEST(ViewCatalogTest, CyclesAreRefused) {
  auto engine = storage::OpenInMemoryStorage();
  auto catalog = OpenCatalog(engine.get());
  ASSERT_TRUE(catalog->CreateView(View("a", "b")).ok());  // b does not exist yet
  Status cycle = catalog->CreateView(View("b", "a"));
  EXPECT_EQ(cycle.code(), ErrorCode::kGraphContainsCycle);
  EXPECT_EQ(cycle.reason(), "View cycle detected: test.b => test.a => test.b");
  EXPECT_EQ(catalog->CreateView(View("self", "self")).code(), ErrorCode::kGraphContainsCycle);
  // collMod checks too.
  ASSERT_TRUE(catalog->CreateView(View("b", "c")).ok());
  EXPECT_EQ(catalog->ModifyView(View("b", "a")).code(), ErrorCode::kGraphContainsCycle);
  EXPECT_TRUE(catalog->ModifyView(View("b", "d")).ok());
  EXPECT_EQ(catalog->LookupView("test.b")->view_on, "d");
}

TEST(ViewCatalogTest, DepthIsLimited) {
  auto engine = storage::OpenInMemoryStorage();
  auto catalog = OpenCatalog(engine.get());
  // v1 on c, v2 on v1, ... v20 on v19: 20 views deep is the limit.
  for (int i = 1; i <= kMaxViewDepth; ++i) {
    std::string on = i == 1 ? "c" : "v" + std::to_string(i - 1);
    ASSERT_TRUE(catalog->CreateView(View("v" + std::to_string(i), on)).ok()) << i;
  }
  Status deep = catalog->CreateView(View("v21", "v20"));
  EXPECT_EQ(deep.code(), ErrorCode::kViewDepthLimitExceeded);
}

TEST(ViewCatalogTest, ViewsSurviveRestartAndDropDatabase) {
  testing_dirs::TempDir temp("tigerdoc-views");
  const std::string& dir = temp.path();
  {
    auto engine = storage::OpenStorageAt(dir);
    auto catalog = OpenCatalog(engine.get());
    ASSERT_TRUE(catalog->CreateView(View("v", "c", R"({"0": {"%match": {"a": 1}}})")).ok());
  }
  {
    auto engine = storage::OpenStorageAt(dir);
    auto catalog = OpenCatalog(engine.get());
    auto v = catalog->LookupView("test.v");
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->view_on, "c");
    EXPECT_EQ(v->pipeline.ToJson(), testing_json::Json(R"({"0": {"%match": {"a": 1}}})").ToJson());
    EXPECT_EQ(catalog->ListDatabases(), std::vector<std::string>{"test"});
    ASSERT_TRUE(catalog->DropDatabase("test").ok());
  }
  {
    auto engine = storage::OpenStorageAt(dir);
    auto catalog = OpenCatalog(engine.get());
    EXPECT_EQ(catalog->LookupView("test.v"), nullptr);
  }
}

}  // namespace
}  // namespace tigerdoc::catalog
