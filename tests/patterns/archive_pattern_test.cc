// The archive pattern (patterns/archive/, engine/archive/): parsing of the
// command's and the option's fields with MongoDB-style errors naming the
// field, the option's canonical form, and Engine::Archive on an in-memory
// engine (whenMatched modes, the target's rules and pattern hooks inside the
// batch's transaction, the scheduler's pass).

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "engine/archive/archive_spec.h"
#include "engine/engine.h"
#include "engine/write/pattern_registry.h"
#include "patterns/archive/archive_pattern.h"
#include "patterns/archive/archive_scheduler.h"
#include "patterns/discriminator/discriminator_pattern.h"
#include "tests/patterns/pattern_engine.h"

namespace tigerdoc::patterns::archive {
namespace {

using bson::BsonDoc;
using engine::ArchiveForm;
using engine::ArchiveSpec;
using engine::ParseArchiveSpec;

StatusWith<ArchiveSpec> Command(const std::string& json) {
  BsonDoc doc = BsonDoc::FromJson(json);
  return ParseArchiveSpec(doc.get(), ArchiveForm::kCommand, "archive", "shop", "orders");
}

StatusWith<ArchiveSpec> Option(const std::string& json) {
  BsonDoc doc = BsonDoc::FromJson(json);
  return ParseArchiveSpec(doc.get(), ArchiveForm::kOption, "create.archive", "shop", "orders");
}

void ExpectError(const StatusWith<ArchiveSpec>& parsed, ErrorCode code, const std::string& names) {
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), code) << parsed.status().ToString();
  EXPECT_NE(parsed.status().reason().find(names), std::string::npos) << parsed.status().ToString();
}

TEST(ArchiveSpecTest, ParsesEveryFieldOfTheCommand) {
  auto spec = Command(R"({"archive": "orders", "to": "ordersArchive",
      "filter": {"status": {"$in": ["delivered"]}},
      "olderThan": {"field": "orderDate", "seconds": 7776000},
      "set": {"archivedAt": "$$NOW", "archiveReason": "age_based"},
      "whenMatched": "replace", "batchSize": 25000, "unionView": "ordersAll"})");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec.value().to_db, "shop");
  EXPECT_EQ(spec.value().to_coll, "ordersArchive");
  EXPECT_EQ(spec.value().older_than_field, "orderDate");
  EXPECT_EQ(spec.value().older_than_seconds, 7776000);
  EXPECT_EQ(spec.value().when_matched, "replace");
  EXPECT_EQ(spec.value().batch_size, 25000);
  EXPECT_EQ(spec.value().union_view, "ordersAll");
  EXPECT_EQ(spec.value().filter.ToJson(), BsonDoc::FromJson(R"({"status": {"$in": ["delivered"]}})").ToJson());
}

TEST(ArchiveSpecTest, DefaultsAndTheDbCollForm) {
  auto spec = Command(R"({"archive": "orders", "to": {"db": "cold", "coll": "orders"}})");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec.value().target_ns(), "cold.orders");
  EXPECT_EQ(spec.value().when_matched, "fail");
  EXPECT_EQ(spec.value().batch_size, 1000);
  EXPECT_TRUE(spec.value().older_than_field.empty());
  auto same_db = Command(R"({"archive": "orders", "to": {"coll": "old"}})");
  ASSERT_TRUE(same_db.ok());
  EXPECT_EQ(same_db.value().target_ns(), "shop.old");
}

TEST(ArchiveSpecTest, BatchSizeBelowAtAndAboveItsLimits) {
  for (const char* ok : {"1", "2", "24999", "25000", "25000.0", "{\"$numberLong\": \"100\"}"}) {
    auto spec = Command(std::string(R"({"archive": "o", "to": "a", "batchSize": )") + ok + "}");
    EXPECT_TRUE(spec.ok()) << ok << ": " << spec.status().ToString();
  }
  for (const char* bad : {"0", "-1", "25001", "1000000", "1.5", "{\"$numberLong\": \"-9\"}"}) {
    ExpectError(Command(std::string(R"({"archive": "o", "to": "a", "batchSize": )") + bad + "}"),
                ErrorCode::kBadValue, "'archive.batchSize'");
  }
  ExpectError(Command(R"({"archive": "o", "to": "a", "batchSize": "5"})"), ErrorCode::kTypeMismatch,
              "'archive.batchSize' is the wrong type 'string'");
}

TEST(ArchiveSpecTest, WrongTypesNameTheField) {
  ExpectError(Command(R"({"archive": "o", "to": 1})"), ErrorCode::kTypeMismatch, "'archive.to'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "filter": []})"), ErrorCode::kTypeMismatch, "'archive.filter'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "set": 3})"), ErrorCode::kTypeMismatch, "'archive.set'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "olderThan": 3})"), ErrorCode::kTypeMismatch,
              "'archive.olderThan'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "olderThan": {"field": 1, "seconds": 1}})"),
              ErrorCode::kTypeMismatch, "'archive.olderThan.field'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "olderThan": {"field": "d", "seconds": "1"}})"),
              ErrorCode::kTypeMismatch, "'archive.olderThan.seconds'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "whenMatched": 1})"), ErrorCode::kTypeMismatch,
              "'archive.whenMatched'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "unionView": true})"), ErrorCode::kTypeMismatch,
              "'archive.unionView'");
  ExpectError(Command(R"({"archive": "o", "to": {"db": 1, "coll": "a"}})"), ErrorCode::kTypeMismatch,
              "'archive.to.db'");
}

TEST(ArchiveSpecTest, MissingAndUnknownFields) {
  ExpectError(Command(R"({"archive": "o"})"), ErrorCode::kLocation40414, "'archive.to' is missing");
  ExpectError(Command(R"({"archive": "o", "to": {"db": "x"}})"), ErrorCode::kLocation40414, "'archive.to.coll'");
  ExpectError(Command(R"({"archive": "o", "to": {"coll": "x", "c": 1}})"), ErrorCode::kLocation40415, "'archive.to.c'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "olderThan": {"field": "d"}})"), ErrorCode::kLocation40414,
              "'archive.olderThan.seconds'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "olderThan": {"seconds": 5}})"), ErrorCode::kLocation40414,
              "'archive.olderThan.field'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "olderThan": {"field": "d", "seconds": 5, "x": 1}})"),
              ErrorCode::kLocation40415, "'archive.olderThan.x'");
  ExpectError(Option(R"({"to": "a", "every": 60, "bogus": 1})"), ErrorCode::kLocation40415,
              "'create.archive.bogus' is an unknown field");
  ExpectError(Option(R"({"to": "a"})"), ErrorCode::kLocation40414, "'create.archive.every' is missing");
  // `every` belongs to the option only.
  EXPECT_TRUE(Option(R"({"to": "a", "every": 60})").ok());
}

TEST(ArchiveSpecTest, BadValuesNameTheField) {
  ExpectError(Command(R"({"archive": "o", "to": "a", "whenMatched": "discard"})"), ErrorCode::kBadValue,
              "'archive.whenMatched'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "olderThan": {"field": "d", "seconds": -1}})"),
              ErrorCode::kBadValue, "'archive.olderThan.seconds'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "olderThan": {"field": "$d", "seconds": 1}})"),
              ErrorCode::kBadValue, "'archive.olderThan.field'");
  ExpectError(Command(R"({"archive": "o", "to": "orders"})"), ErrorCode::kBadValue, "into itself");
  ExpectError(Command(R"({"archive": "o", "to": {"db": "shop", "coll": "orders"}})"), ErrorCode::kBadValue,
              "into itself");
  ExpectError(Command(R"({"archive": "o", "to": "system.js"})"), ErrorCode::kBadValue, "system collection");
  ExpectError(Command(R"({"archive": "o", "to": {"db": "local", "coll": "x"}})"), ErrorCode::kBadValue,
              "internal database");
  ExpectError(Command(R"({"archive": "o", "to": "a", "set": {"_id": 1}})"), ErrorCode::kBadValue,
              "'archive.set._id'");
  ExpectError(Command(R"({"archive": "o", "to": "a", "unionView": "orders"})"), ErrorCode::kBadValue,
              "'archive.unionView'");
  ExpectError(Command(R"({"archive": "o", "to": {"db": "cold", "coll": "a"}, "unionView": "all"})"),
              ErrorCode::kBadValue, "same database");
  ExpectError(Option(R"({"to": "a", "every": 0})"), ErrorCode::kBadValue, "'create.archive.every'");
  ExpectError(Option(R"({"to": "a", "every": 1.5})"), ErrorCode::kBadValue, "'create.archive.every'");
  // The filter and the set expressions are compiled when parsed.
  auto bad_filter = Command(R"({"archive": "o", "to": "a", "filter": {"a": {"$nope": 1}}})");
  ASSERT_FALSE(bad_filter.ok());
  EXPECT_NE(bad_filter.status().reason().find("'archive.filter'"), std::string::npos);
  auto bad_set = Command(R"({"archive": "o", "to": "a", "set": {"a": {"$nope": 1}}})");
  ASSERT_FALSE(bad_set.ok());
  EXPECT_NE(bad_set.status().reason().find("'archive.set'"), std::string::npos);
}

TEST(ArchiveSpecTest, OptionCanonicalFormParsesBackToTheSameSpec) {
  auto spec = Option(R"({"every": 60, "to": "ordersArchive", "olderThan": {"seconds": 10.0, "field": "d"},
                         "set": {"x": 1}, "unionView": "all"})");
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  BsonDoc canonical = engine::ArchiveOptionDocument(spec.value());
  EXPECT_EQ(canonical.ToJson(),
            BsonDoc::FromJson(R"({"to": "ordersArchive", "filter": {},
                "olderThan": {"field": "d", "seconds": {"$numberLong": "10"}}, "set": {"x": 1},
                "whenMatched": "fail", "batchSize": 1000, "unionView": "all",
                "every": {"$numberLong": "60"}})").ToJson());
  auto again = ParseArchiveSpec(canonical.get(), ArchiveForm::kOption, "archive", "shop", "orders");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(engine::ArchiveOptionDocument(again.value()).ToJson(), canonical.ToJson());
  // {db, coll} stays {db, coll}.
  auto other_db = Option(R"({"every": 5, "to": {"db": "cold", "coll": "o"}})");
  ASSERT_TRUE(other_db.ok());
  EXPECT_NE(engine::ArchiveOptionDocument(other_db.value()).ToJson().find("\"cold\""), std::string::npos);
}

class ArchiveEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::unique_ptr<engine::Pattern>> patterns;
    patterns.push_back(MakeArchivePattern());
    patterns.push_back(discriminator::MakeDiscriminatorPattern());
    engine_ = pattern_testing::OpenEngineWith(std::move(patterns));
    ASSERT_NE(engine_, nullptr);
  }

  Status Create(const std::string& name, const std::string& options) {
    return engine_->CreateCollection(pattern_testing::CreateIn(name, options));
  }

  void Insert(const std::string& coll, const std::string& json) {
    std::vector<BsonDoc> docs;
    docs.push_back(BsonDoc::FromJson(json));
    auto results = engine_->InsertMany("db", coll, std::move(docs), true);
    ASSERT_TRUE(results.ok());
    ASSERT_TRUE(results.value()[0].ok()) << results.value()[0].ToString();
  }

  int64_t Count(const std::string& coll, const std::string& filter = "{}") {
    engine::CountParams params;
    params.db = "db";
    params.coll = coll;
    params.filter = BsonDoc::FromJson(filter);
    auto n = engine_->Count(params);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? n.value() : -1;
  }

  StatusWith<engine::ArchiveResult> Archive(const std::string& json) {
    BsonDoc doc = BsonDoc::FromJson(json);
    bson_iter_t it;
    bson_iter_init(&it, doc.get());
    bson_iter_next(&it);
    ASSIGN_OR_RETURN(ArchiveSpec spec, ParseArchiveSpec(doc.get(), ArchiveForm::kCommand, "archive", "db",
                                                        bson_iter_utf8(&it, nullptr)));
    return engine_->Archive(spec, nullptr);
  }

  std::unique_ptr<engine::Engine> engine_;
};

TEST_F(ArchiveEngineTest, WhenMatchedModes) {
  for (int i = 0; i < 4; ++i) Insert("src", R"({"_id": )" + std::to_string(i) + R"(, "v": "new"})");
  Insert("arc", R"({"_id": 1, "v": "old", "keep": true})");
  // fail: 11000, the batch (all four) rolled back.
  auto failed = Archive(R"({"archive": "src", "to": "arc", "whenMatched": "fail"})");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ErrorCode::kDuplicateKey) << failed.status().ToString();
  EXPECT_NE(failed.status().reason().find("0 documents in 0 earlier batches stay moved"), std::string::npos);
  EXPECT_EQ(Count("src"), 4);
  EXPECT_EQ(Count("arc"), 1);
  // keepExisting: the archived copy stays, the source's is removed.
  auto kept = Archive(R"({"archive": "src", "to": "arc", "whenMatched": "keepExisting", "filter": {"_id": {"$lte": 1}}})");
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(kept.value().moved, 2);
  EXPECT_EQ(Count("arc", R"({"_id": 1, "v": "old"})"), 1);
  // replace / merge.
  Insert("src", R"({"_id": 1, "v": "newer"})");
  ASSERT_TRUE(Archive(R"({"archive": "src", "to": "arc", "whenMatched": "merge", "filter": {"_id": 1}})").ok());
  EXPECT_EQ(Count("arc", R"({"_id": 1, "v": "newer", "keep": true})"), 1);
  Insert("src", R"({"_id": 1, "v": "newest"})");
  ASSERT_TRUE(Archive(R"({"archive": "src", "to": "arc", "whenMatched": "replace", "filter": {"_id": 1}})").ok());
  EXPECT_EQ(Count("arc", R"({"_id": 1, "v": "newest", "keep": {"$exists": false}})"), 1);
  auto rest = Archive(R"({"archive": "src", "to": "arc", "set": {"at": "$$NOW", "n": {"$add": ["$_id", 100]}}})");
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  EXPECT_EQ(rest.value().moved, 2);
  EXPECT_EQ(Count("src"), 0);
  EXPECT_EQ(Count("arc", R"({"n": 102, "at": {"$exists": true}})"), 1);
}

// The archive's writes go through its CollectionWriter: its validator and
// its patterns' hooks judge each document inside the batch's transaction.
TEST_F(ArchiveEngineTest, TargetRulesAndHooksRunInsideTheBatch) {
  ASSERT_TRUE(Create("typed", R"({"discriminator": {"field": "kind", "types": {"order": {}}}})").ok());
  Insert("src", R"({"_id": 1, "kind": "order"})");
  Insert("src", R"({"_id": 2})");
  auto refused = Archive(R"({"archive": "src", "to": "typed", "batchSize": 1})");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(Count("src") + Count("typed"), 2);
  auto fixed = Archive(R"({"archive": "src", "to": "typed", "set": {"kind": "order"}})");
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
  EXPECT_EQ(Count("typed"), 2);
  EXPECT_EQ(Count("src"), 0);
  // The source's hooks see the removes: its per-type counts follow, exact.
  ASSERT_TRUE(Create("typedSource", R"({"discriminator": {"field": "kind", "types": {"order": {}}}})").ok());
  Insert("typedSource", R"({"_id": 10, "kind": "order"})");
  Insert("typedSource", R"({"_id": 11, "kind": "order"})");
  ASSERT_TRUE(Archive(R"({"archive": "typedSource", "to": "typed", "filter": {"_id": 10}})").ok());
  auto stats = engine_->PatternStats(*engine_->catalog().Lookup("db.typedSource"));
  ASSERT_TRUE(stats.ok());
  EXPECT_NE(stats.value().ToJson().find(R"("order" : { "count" : 1)"), std::string::npos) << stats.value().ToJson();
  std::vector<std::string> problems;
  ASSERT_TRUE(engine_->ValidatePatterns(*engine_->catalog().Lookup("db.typedSource"), &problems).ok());
  EXPECT_TRUE(problems.empty());
  auto target_stats = engine_->PatternStats(*engine_->catalog().Lookup("db.typed"));
  ASSERT_TRUE(target_stats.ok());
  EXPECT_NE(target_stats.value().ToJson().find(R"("order" : { "count" : 3)"), std::string::npos)
      << target_stats.value().ToJson();
  // The validator too.
  ASSERT_TRUE(Create("checked", R"({"validator": {"reason": {"$exists": true}}})").ok());
  Insert("src", R"({"_id": 3})");
  auto invalid = Archive(R"({"archive": "src", "to": "checked"})");
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().code(), ErrorCode::kDocumentValidationFailure);
  EXPECT_EQ(Count("src"), 1);
  ASSERT_TRUE(Archive(R"({"archive": "src", "to": "checked", "set": {"reason": "age"}})").ok());
  EXPECT_EQ(Count("checked"), 1);
}

TEST_F(ArchiveEngineTest, CreatesTheArchiveWithTheSourceIndexesAndTheUnionView) {
  Insert("src", R"({"_id": 1, "d": 1, "u": 1})");
  engine::CreateIndexesParams indexes;
  indexes.db = "db";
  indexes.coll = "src";
  indexes.specs.push_back(BsonDoc::FromJson(R"({"key": {"d": -1}, "name": "d_-1"})"));
  indexes.specs.push_back(BsonDoc::FromJson(R"({"key": {"u": 1}, "name": "u_1", "unique": true})"));
  ASSERT_TRUE(engine_->CreateIndexes(indexes).ok());
  auto moved = Archive(R"({"archive": "src", "to": "arc", "unionView": "all"})");
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_TRUE(moved.value().created_target);
  auto listed = engine_->ListIndexes("db", "arc");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed.value().size(), 3u);
  EXPECT_NE(listed.value()[2].ToJson().find("\"unique\" : true"), std::string::npos) << listed.value()[2].ToJson();
  Insert("src", R"({"_id": 2, "d": 2, "u": 2})");
  EXPECT_EQ(Count("all"), 2);
  EXPECT_EQ(Count("all", R"({"_id": 1})"), 1);
  // The view is kept: one that drifted is put back by the next move.
  engine::CreateViewParams drifted;
  drifted.db = "db";
  drifted.name = "all";
  drifted.view_on = "src";
  drifted.pipeline = BsonDoc::FromJson(R"({"0": {"$match": {"_id": 2}}})");
  ASSERT_TRUE(engine_->ModifyView(drifted).ok());
  EXPECT_EQ(Count("all"), 1);
  ASSERT_TRUE(Archive(R"({"archive": "src", "to": "arc", "unionView": "all", "filter": {"_id": 0}})").ok());
  EXPECT_EQ(Count("all"), 2);
}

TEST_F(ArchiveEngineTest, OptionIsValidatedAgainstItsCollectionAndScheduled) {
  Status self = Create("orders", R"({"archive": {"to": "orders", "every": 1}})");
  EXPECT_EQ(self.code(), ErrorCode::kBadValue) << self.ToString();
  ASSERT_TRUE(Create("orders", R"({"archive": {"to": "arc", "every": 1, "filter": {"done": true}}})").ok());
  Insert("orders", R"({"_id": 1, "done": true})");
  Insert("orders", R"({"_id": 2, "done": false})");
  ArchiveScheduler scheduler(engine_.get());
  const auto first_pass = std::chrono::steady_clock::now();
  scheduler.RunDueMoves();  // first sight: runs at once
  EXPECT_EQ(Count("orders"), 1);
  EXPECT_EQ(Count("arc"), 1);
  Insert("orders", R"({"_id": 3, "done": true})");
  scheduler.RunDueMoves();  // `every` (1 s) has not passed...
  // ...unless this thread was descheduled for a second since the first pass
  // (a loaded CI machine): then the move was due, and ran.
  if (std::chrono::steady_clock::now() - first_pass < std::chrono::seconds(1)) {
    EXPECT_EQ(Count("orders"), 2);
  } else {
    std::cerr << "the second pass came over 1 s after the first; its move was due\n";
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  scheduler.RunDueMoves();
  EXPECT_EQ(Count("orders"), 1);
  EXPECT_EQ(Count("arc"), 2);
}

}  // namespace
}  // namespace tigerdoc::patterns::archive
