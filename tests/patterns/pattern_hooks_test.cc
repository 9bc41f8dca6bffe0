// The pattern framework (engine/write/hooks.h): a test pattern whose hook
// reshapes, refuses, and writes another collection, on the engine's write
// paths, with in-memory WiredTiger.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "engine/engine.h"
#include "engine/write/collection_writer.h"
#include "engine/write/pattern_registry.h"
#include "tests/patterns/pattern_engine.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

// Option "audit: <collection name>": stamps `audited: true` on every stored
// document, refuses documents with `bad: true`, and copies every change
// into the named collection as {op, id} (through its own writer).
class AuditHook : public PatternHook {
 public:
  explicit AuditHook(std::string target) : target_(std::move(target)) {}
  Status BeforeStore(HookContext& ctx, const WriteEvent& event, BsonDoc* reshaped) override {
    bson_iter_t it;
    if (bson_iter_init_find(&it, event.after, "bad") && bson_iter_as_bool(&it)) {
      return Status(ErrorCode::kBadValue, "audit refuses bad documents");
    }
    *reshaped = BsonDoc::CopyOf(event.after);
    BSON_APPEND_BOOL(reshaped->mutable_get(), "audited", true);
    return Status::OK();
  }
  Status AfterStore(HookContext& ctx, const WriteEvent& event) override {
    return Record(ctx, event.kind == WriteKind::kInsert ? "i" : "u", event.after);
  }
  Status AfterRemove(HookContext& ctx, const WriteEvent& event) override {
    return Record(ctx, "d", event.before);
  }
  Status AppendStats(storage::Session&, const catalog::CollectionEntry&, bson_t* out) override {
    BSON_APPEND_INT64(out, "writes", writes_.load());
    return Status::OK();
  }
  void AppendExplain(const catalog::CollectionEntry&, bson_t* out) const override {
    BSON_APPEND_UTF8(out, "target", target_.c_str());
  }

 private:
  Status Record(HookContext& ctx, const char* op, const bson_t* doc) {
    ASSIGN_OR_RETURN(CollectionWriter * writer,
                     ctx.WriterFor(ctx.collection().metadata.db, target_));
    BsonDoc entry;
    bson_oid_t oid;
    bson_oid_init(&oid, nullptr);
    BSON_APPEND_OID(entry.mutable_get(), "_id", &oid);
    BSON_APPEND_UTF8(entry.mutable_get(), "op", op);
    bson_iter_t id;
    bson_iter_init_find(&id, doc, "_id");
    bson_append_iter(entry.mutable_get(), "id", 2, &id);
    RETURN_IF_ERROR(writer->Insert(ctx.session(), entry.get()));
    ctx.session().OnCommit([this] { writes_.fetch_add(1); });
    return Status::OK();
  }
  std::string target_;
  std::atomic<int64_t> writes_{0};
};

class AuditPattern : public Pattern {
 public:
  std::string_view name() const override { return "audit"; }
  std::vector<std::string> option_names() const override { return {"audit"}; }
  StatusWith<BsonDoc> Configure(std::string_view command, const bson_t* given,
                                const bson_t*) const override {
    bson_iter_t it;
    bson_iter_init_find(&it, given, "audit");
    if (BSON_ITER_HOLDS_NULL(&it)) return BsonDoc();
    if (!BSON_ITER_HOLDS_UTF8(&it)) {
      return Status(ErrorCode::kTypeMismatch,
                    "BSON field '" + std::string(command) + ".audit' must be a string");
    }
    BsonDoc out;
    BSON_APPEND_UTF8(out.mutable_get(), "target", bson_iter_utf8(&it, nullptr));
    return out;
  }
  StatusWith<std::shared_ptr<PatternHook>> Attach(storage::Session&, const catalog::CollectionEntry&,
                                                  const bson_t* config, AttachReason) const override {
    bson_iter_t it;
    bson_iter_init_find(&it, config, "target");
    return std::shared_ptr<PatternHook>(std::make_shared<AuditHook>(bson_iter_utf8(&it, nullptr)));
  }
};

class PatternHooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = patterns::pattern_testing::OpenEngineWith(std::make_unique<AuditPattern>());
    ASSERT_NE(engine_, nullptr);
    ASSERT_TRUE(
        engine_->CreateCollection(patterns::pattern_testing::CreateIn("c", R"({"audit": "log"})")).ok());
  }

  int64_t Count(const char* coll, const char* filter = "{}") {
    CountParams params;
    params.db = "db";
    params.coll = coll;
    params.filter = BsonDoc::FromJson(filter);
    auto n = engine_->Count(params);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? n.value() : -1;
  }

  std::unique_ptr<Engine> engine_;
};

TEST_F(PatternHooksTest, CreateStoresTheCanonicalConfigAndRefusesBadOnes) {
  auto entry = engine_->catalog().Lookup("db.c");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->patterns()->configs.ToJson(), R"({ "audit" : { "target" : "log" } })");
  CreateParams bad;
  bad.db = "db";
  bad.name = "d";
  bad.options = BsonDoc::FromJson(R"({"audit": 1})");
  Status status = engine_->CreateCollection(bad);
  EXPECT_EQ(status.code(), ErrorCode::kTypeMismatch);
  EXPECT_EQ(engine_->catalog().Lookup("db.d"), nullptr);
}

TEST_F(PatternHooksTest, InsertIsReshapedAndWritesAnotherCollectionInItsTransaction) {
  std::vector<BsonDoc> docs;
  docs.push_back(BsonDoc::FromJson(R"({"_id": 1})"));
  docs.push_back(BsonDoc::FromJson(R"({"_id": 2, "bad": true})"));
  docs.push_back(BsonDoc::FromJson(R"({"_id": 3})"));
  auto results = engine_->InsertMany("db", "c", std::move(docs), /*ordered=*/false);
  ASSERT_TRUE(results.ok());
  ASSERT_EQ(results.value().size(), 3u);
  EXPECT_TRUE(results.value()[0].ok());
  EXPECT_EQ(results.value()[1].code(), ErrorCode::kBadValue);
  EXPECT_TRUE(results.value()[2].ok());
  EXPECT_EQ(Count("c", R"({"audited": true})"), 2);
  // The refused document left nothing in the other collection either.
  EXPECT_EQ(Count("log"), 2);
}

TEST_F(PatternHooksTest, UpdateUpsertAndDeleteRunTheHooks) {
  UpdateStatement update;
  update.query = BsonDoc::FromJson(R"({"_id": 5})");
  update.update = BsonDoc::FromJson(R"({"$set": {"x": 1}})");
  update.upsert = true;
  ASSERT_TRUE(engine_->Update("db", "c", update).ok());
  update.update = BsonDoc::FromJson(R"({"$set": {"x": 2}})");
  ASSERT_TRUE(engine_->Update("db", "c", update).ok());
  update.update = BsonDoc::FromJson(R"({"$set": {"bad": true}})");
  EXPECT_EQ(engine_->Update("db", "c", update).status().code(), ErrorCode::kBadValue);
  DeleteStatement del;
  del.query = BsonDoc::FromJson(R"({"_id": 5})");
  ASSERT_TRUE(engine_->Delete("db", "c", del).ok());
  EXPECT_EQ(Count("log", R"({"op": "i"})"), 1);
  EXPECT_EQ(Count("log", R"({"op": "u"})"), 1);
  EXPECT_EQ(Count("log", R"({"op": "d"})"), 1);
}

TEST_F(PatternHooksTest, StatsAndExplainComeFromTheHook) {
  std::vector<BsonDoc> docs;
  docs.push_back(BsonDoc::FromJson(R"({"_id": 1})"));
  ASSERT_TRUE(engine_->InsertMany("db", "c", std::move(docs), true).ok());
  auto entry = engine_->catalog().Lookup("db.c");
  auto stats = engine_->PatternStats(*entry);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats.value().ToJson(), R"({ "audit" : { "writes" : 1 } })");
  EXPECT_EQ(engine_->PatternExplain(*entry).ToJson(), R"({ "audit" : { "target" : "log" } })");
}

TEST_F(PatternHooksTest, CollModRemovesAndRestoresThePattern) {
  ASSERT_TRUE(engine_->ModifyPatterns("db", "c", BsonDoc::FromJson(R"({"audit": null})").get()).ok());
  std::vector<BsonDoc> docs;
  docs.push_back(BsonDoc::FromJson(R"({"_id": 1, "bad": true})"));
  auto results = engine_->InsertMany("db", "c", std::move(docs), true);
  ASSERT_TRUE(results.ok());
  EXPECT_TRUE(results.value()[0].ok());
  auto entry = engine_->catalog().Lookup("db.c");
  EXPECT_TRUE(entry->patterns()->configs.empty());
  EXPECT_EQ(entry->metadata.options.ToJson(), "{ }");
  ASSERT_TRUE(engine_->ModifyPatterns("db", "c", BsonDoc::FromJson(R"({"audit": "log2"})").get()).ok());
  EXPECT_EQ(entry->metadata.options.ToJson(), R"({ "audit" : "log2" })");
  EXPECT_EQ(engine_->ModifyPatterns("db", "missing", BsonDoc::FromJson(R"({"audit": "x"})").get()).code(),
            ErrorCode::kNamespaceNotFound);
}

}  // namespace
}  // namespace tigerdoc::engine
