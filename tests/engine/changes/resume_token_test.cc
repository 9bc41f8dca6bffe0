// Resume tokens and $changeStream options: round trips, order, MongoDB's
// errors for bad input.

#include "engine/changes/resume_token.h"

#include <gtest/gtest.h>

#include "engine/changes/change_stream_options.h"

namespace tigerdoc::engine {
namespace {

using bson::BsonDoc;

TEST(ResumeTokenTest, RoundTripsEveryKind) {
  for (auto kind : {ResumeToken::Kind::kEvent, ResumeToken::Kind::kHighWaterMark,
                    ResumeToken::Kind::kInvalidate}) {
    ResumeToken token{LogPosition{{1764150000, 42}, 3}, kind};
    auto parsed = ResumeToken::FromBson(token.ToBson().get(), "resumeAfter");
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed.value().pos, token.pos);
    EXPECT_EQ(parsed.value().kind, kind);
  }
}

TEST(ResumeTokenTest, HexIsStableAndSortsAsPositions) {
  // The encoding is a compatibility promise (engine/README.md).
  ResumeToken token{LogPosition{{0x01020304, 5}, 6}, ResumeToken::Kind::kEvent};
  EXPECT_EQ(token.ToHex(), "010102030400000005000000060" "0");
  ResumeToken later{LogPosition{{0x01020304, 5}, 7}, ResumeToken::Kind::kEvent};
  EXPECT_LT(token.ToHex(), later.ToHex());
}

TEST(ResumeTokenTest, MalformedTokensAreBadValue) {
  for (const char* json : {R"({"_data": "zz"})", R"({"_data": 5})", R"({})",
                           R"({"_data": "0201020304000000050000000600"})",
                           R"({"_data": "0101020304000000050000000609"})"}) {
    auto parsed = ResumeToken::FromBson(BsonDoc::FromJson(json).get(), "resumeAfter");
    EXPECT_EQ(parsed.status().code(), ErrorCode::kBadValue) << json;
  }
}

ErrorCode ParseCode(const char* json) {
  return ChangeStreamOptions::Parse(BsonDoc::FromJson(json).get()).status().code();
}

TEST(ChangeStreamOptionsTest, AcceptsEveryDocumentedOption) {
  ResumeToken token{LogPosition{{10, 1}, 0}, ResumeToken::Kind::kEvent};
  std::string json = R"({"fullDocument": "updateLookup", "fullDocumentBeforeChange": "whenAvailable",
                        "showExpandedEvents": true, "resumeAfter": {"_data": ")" +
                     token.ToHex() + R"("}})";
  auto parsed = ChangeStreamOptions::Parse(BsonDoc::FromJson(json).get());
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed.value().full_document, ChangeStreamOptions::FullDocument::kUpdateLookup);
  EXPECT_EQ(parsed.value().before_change, ChangeStreamOptions::BeforeChange::kWhenAvailable);
  EXPECT_TRUE(parsed.value().show_expanded_events);
  EXPECT_EQ(parsed.value().resume_after->pos, token.pos);
}

TEST(ChangeStreamOptionsTest, RefusesWithMongoDbCodes) {
  EXPECT_EQ(ParseCode(R"({"fullDocument": "sometimes"})"), ErrorCode::kBadValue);
  EXPECT_EQ(ParseCode(R"({"fullDocument": 1})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseCode(R"({"fullDocumentBeforeChange": "default"})"), ErrorCode::kBadValue);
  EXPECT_EQ(ParseCode(R"({"showExpandedEvents": 1})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseCode(R"({"startAtOperationTime": 5})"), ErrorCode::kTypeMismatch);
  EXPECT_EQ(ParseCode(R"({"bogus": 1})"), ErrorCode::kLocation40415);
  const std::string event = ResumeToken{LogPosition{{10, 1}, 0}}.ToHex();
  const std::string both = R"({"resumeAfter": {"_data": ")" + event +
                           R"("}, "startAfter": {"_data": ")" + event + R"("}})";
  EXPECT_EQ(ParseCode(both.c_str()), static_cast<ErrorCode>(50865));
  const std::string invalidate =
      ResumeToken{LogPosition{{10, 1}, 0}, ResumeToken::Kind::kInvalidate}.ToHex();
  const std::string resume_invalidate = R"({"resumeAfter": {"_data": ")" + invalidate + R"("}})";
  EXPECT_EQ(ParseCode(resume_invalidate.c_str()), ErrorCode::kInvalidResumeToken);
  const std::string start_invalidate = R"({"startAfter": {"_data": ")" + invalidate + R"("}})";
  EXPECT_TRUE(ChangeStreamOptions::Parse(BsonDoc::FromJson(start_invalidate).get()).ok());
}

}  // namespace
}  // namespace tigerdoc::engine
