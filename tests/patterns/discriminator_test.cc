// The discriminator single-collection pattern (patterns/discriminator):
// option parsing, type lookup (exact, longest prefix), per-type validators
// on every write, exact per-type counts, and collMod rules; in-memory engine.

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/write/pattern_registry.h"
#include "patterns/discriminator/discriminator_pattern.h"
#include "tests/patterns/pattern_engine.h"
#include "tests/testutil/array_keys.h"

namespace tigerdoc::patterns::discriminator {
namespace {

using bson::BsonDoc;

constexpr char kEvents[] = R"({"discriminator": {"field": "type", "types": {
    "user.login": {},
    "order.*": {"orderId": {"$exists": true}},
    "order.refunded": {"amount": {"$lt": 0}}}}})";

class DiscriminatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = pattern_testing::OpenEngineWith(MakeDiscriminatorPattern());
    ASSERT_NE(engine_, nullptr);
  }

  Status Create(const std::string& name, const std::string& options) {
    return engine_->CreateCollection(pattern_testing::CreateIn(name, options));
  }

  Status Insert(const std::string& json) {
    std::vector<BsonDoc> docs;
    docs.push_back(BsonDoc::FromJson(json));
    auto results = engine_->InsertMany("db", "events", std::move(docs), true);
    if (!results.ok()) return results.status();
    return results.value()[0];
  }

  std::string Stats() {
    auto stats = engine_->PatternStats(*engine_->catalog().Lookup("db.events"));
    EXPECT_TRUE(stats.ok());
    return stats.value().ToJson();
  }

  std::vector<std::string> Recount() {
    std::vector<std::string> problems;
    EXPECT_TRUE(engine_->ValidatePatterns(*engine_->catalog().Lookup("db.events"), &problems).ok());
    return problems;
  }

  std::unique_ptr<engine::Engine> engine_;
};

TEST_F(DiscriminatorTest, BadOptionsNameTheField) {
  struct Case {
    const char* options;
    ErrorCode code;
    const char* names;
  } cases[] = {
      {R"({"discriminator": {"feild": "type", "types": {"a": {}}}})", ErrorCode::kLocation40415,
       "create.discriminator.feild"},
      {R"({"discriminator": {"types": {"a*": {}}}})", ErrorCode::kBadValue, "create.discriminator.types.a*"},
      {R"({"discriminator": {"types": {"a": 1}}})", ErrorCode::kTypeMismatch, "create.discriminator.types.a"},
      {R"({"discriminator": {"types": {}}})", ErrorCode::kBadValue, "create.discriminator.types"},
      {R"({"discriminator": {"required": "yes", "types": {"a": {}}}})", ErrorCode::kTypeMismatch,
       "create.discriminator.required"},
      {R"({"discriminator": {"types": {"a": {"x": {"$bogus": 1}}}}})", ErrorCode::kBadValue,
       "create.discriminator.types.a"},
      {R"({"discriminator": "type"})", ErrorCode::kTypeMismatch, "create.discriminator"},
  };
  for (const Case& c : cases) {
    Status status = Create("bad", c.options);
    EXPECT_EQ(status.code(), c.code) << c.options << " -> " << status.ToString();
    EXPECT_NE(status.reason().find(c.names), std::string::npos) << status.ToString();
  }
}

TEST_F(DiscriminatorTest, EveryDocumentNeedsADeclaredTypeAndPassesItsValidator) {
  ASSERT_TRUE(Create("events", kEvents).ok());
  EXPECT_TRUE(Insert(R"({"_id": 1, "type": "user.login"})").ok());
  EXPECT_TRUE(Insert(R"({"_id": 2, "type": "order.created", "orderId": 7})").ok());
  // The most specific key wins: order.refunded has its own validator.
  EXPECT_TRUE(Insert(R"({"_id": 3, "type": "order.refunded", "amount": -5})").ok());
  Status status = Insert(R"({"_id": 4, "type": "order.refunded", "orderId": 1, "amount": 5})");
  EXPECT_EQ(status.code(), ErrorCode::kDocumentValidationFailure);
  EXPECT_NE(status.reason().find("type \"order.refunded\" must match { amount: { $lt: 0 } }"),
            std::string::npos) << status.ToString();
  status = Insert(R"({"_id": 5, "type": "order.created"})");
  EXPECT_EQ(status.code(), ErrorCode::kDocumentValidationFailure);
  status = Insert(R"({"_id": 6, "type": "payment.done"})");
  EXPECT_EQ(status.code(), ErrorCode::kDocumentValidationFailure);
  EXPECT_NE(status.reason().find("\"payment.done\" is not a declared type; declared types: "
                                 "user.login, order.*, order.refunded"),
            std::string::npos) << status.ToString();
  // errInfo names the field, the value and the declared types.
  bson_t extra;
  ASSERT_TRUE(bson_init_static(&extra, reinterpret_cast<const uint8_t*>(status.extra_bson().data()),
                               status.extra_bson().size()));
  BsonDoc info = BsonDoc::CopyOf(&extra);
  const std::string json = info.ToJson();
  EXPECT_NE(json.find(R"("failingDocumentId" : 6)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("field" : "type", "value" : "payment.done")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("declaredTypes" : [ "user.login", "order.*", "order.refunded" ])"),
            std::string::npos) << json;
  // JSON hides array keys; they must still be 0, 1, 2.
  EXPECT_EQ(testutil::FirstMisnumberedArray(info.get()), "") << json;
  status = Insert(R"({"_id": 7})");
  EXPECT_EQ(status.code(), ErrorCode::kDocumentValidationFailure);
  EXPECT_NE(status.reason().find("field 'type' is missing"), std::string::npos);
  // "order.*" does not cover "order" itself.
  EXPECT_EQ(Insert(R"({"_id": 8, "type": "order", "orderId": 1})").code(),
            ErrorCode::kDocumentValidationFailure);
  // Updates are checked too, and the counts follow a change of type.
  engine::UpdateStatement update;
  update.query = BsonDoc::FromJson(R"({"_id": 2})");
  update.update = BsonDoc::FromJson(R"({"$unset": {"orderId": 1}})");
  EXPECT_EQ(engine_->Update("db", "events", update).status().code(),
            ErrorCode::kDocumentValidationFailure);
  update.update = BsonDoc::FromJson(R"({"$set": {"type": "user.login"}})");
  ASSERT_TRUE(engine_->Update("db", "events", update).ok());
  const std::string stats = Stats();
  EXPECT_NE(stats.find(R"("user.login" : { "count" : 2)"), std::string::npos) << stats;
  EXPECT_NE(stats.find(R"("order.*" : { "count" : 0, "size" : 0 })"), std::string::npos) << stats;
  EXPECT_NE(stats.find(R"("order.refunded" : { "count" : 1)"), std::string::npos) << stats;
  engine::DeleteStatement del;
  del.query = BsonDoc::FromJson(R"({"_id": 3})");
  ASSERT_TRUE(engine_->Delete("db", "events", del).ok());
  EXPECT_NE(Stats().find(R"("order.refunded" : { "count" : 0, "size" : 0 })"), std::string::npos);
  EXPECT_TRUE(Recount().empty());
}

TEST_F(DiscriminatorTest, OptionalFieldCountsUntypedDocuments) {
  ASSERT_TRUE(Create("events", R"({"discriminator": {"required": false, "types": {"a": {}}}})").ok());
  EXPECT_TRUE(Insert(R"({"_id": 1})").ok());
  EXPECT_TRUE(Insert(R"({"_id": 2, "type": "a"})").ok());
  EXPECT_EQ(Insert(R"({"_id": 3, "type": "b"})").code(), ErrorCode::kDocumentValidationFailure);
  EXPECT_NE(Stats().find(R"("untyped" : { "count" : 1)"), std::string::npos) << Stats();
  EXPECT_TRUE(Recount().empty());
}

TEST_F(DiscriminatorTest, CollModAddsTypesAndRefusesRulesExistingDocumentsBreak) {
  ASSERT_TRUE(Create("events", kEvents).ok());
  ASSERT_TRUE(Insert(R"({"_id": 1, "type": "user.login"})").ok());
  ASSERT_TRUE(Insert(R"({"_id": 2, "type": "order.created", "orderId": 1})").ok());
  // Adding a type works.
  ASSERT_TRUE(engine_->ModifyPatterns("db", "events", BsonDoc::FromJson(R"({"discriminator": {"types": {
      "user.login": {}, "order.*": {"orderId": {"$exists": true}}, "payment.processed": {}}}})").get()).ok());
  EXPECT_TRUE(Insert(R"({"_id": 3, "type": "payment.processed"})").ok());
  // Removing a type that documents use is refused in strict mode...
  Status refused = engine_->ModifyPatterns("db", "events", BsonDoc::FromJson(R"({"discriminator": {"types": {
      "order.*": {}, "payment.processed": {}}}})").get());
  EXPECT_EQ(refused.code(), ErrorCode::kDocumentValidationFailure);
  EXPECT_NE(refused.reason().find("validationLevel: \"moderate\""), std::string::npos) << refused.ToString();
  EXPECT_TRUE(Insert(R"({"_id": 4, "type": "user.login"})").ok());  // nothing changed
  // ...and accepted when moderate: old documents stay, counted as undeclared.
  ASSERT_TRUE(engine_->ModifyPatterns("db", "events", BsonDoc::FromJson(R"({"discriminator": {
      "validationLevel": "moderate", "types": {"order.*": {}, "payment.processed": {}}}})").get()).ok());
  EXPECT_NE(Stats().find(R"("undeclared" : { "count" : 2)"), std::string::npos) << Stats();
  EXPECT_EQ(Insert(R"({"_id": 5, "type": "user.login"})").code(), ErrorCode::kDocumentValidationFailure);
  // Moderate: an update of a document that already broke the rules is let through.
  engine::UpdateStatement update;
  update.query = BsonDoc::FromJson(R"({"_id": 1})");
  update.update = BsonDoc::FromJson(R"({"$set": {"seen": true}})");
  EXPECT_TRUE(engine_->Update("db", "events", update).ok());
  EXPECT_TRUE(Recount().empty());
  // null removes the pattern.
  ASSERT_TRUE(engine_->ModifyPatterns("db", "events", BsonDoc::FromJson(R"({"discriminator": null})").get()).ok());
  EXPECT_TRUE(Insert(R"({"_id": 6})").ok());
}

}  // namespace
}  // namespace tigerdoc::patterns::discriminator
