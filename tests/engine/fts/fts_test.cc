// Text search units: tokenizer (delimiters, folding, stop words, libstemmer
// stemming), text index specs (MongoDB's stored form and errors), scores
// (MongoDB's formula, worked by hand below) and $text query parsing and
// matching.

#include <gtest/gtest.h>

#include <cmath>

#include "engine/bson/bson_doc.h"
#include "engine/fts/fts_language.h"
#include "engine/fts/fts_query.h"
#include "engine/fts/fts_spec.h"
#include "engine/fts/fts_tokenizer.h"

namespace tigerdoc::fts {
namespace {

using bson::BsonDoc;
using Terms = std::vector<std::string>;

const Language& Lang(const char* name) { return *FindLanguage(name).value(); }

TEST(FtsTokenizerTest, SplitsFoldsDropsStopWordsAndStems) {
  EXPECT_EQ(Tokenize("The Running dogs, jumped!", Lang("english")),
            (Terms{"run", "dog", "jump"}));
}

TEST(FtsTokenizerTest, KeepsCaseWhenCaseSensitive) {
  TokenizerOptions options;
  options.case_sensitive = true;
  EXPECT_EQ(Tokenize("Coffee the", Lang("english"), options), (Terms{"Coffe"}));
}

TEST(FtsTokenizerTest, RemovesDiacriticsUnlessDiacriticSensitive) {
  EXPECT_EQ(Tokenize("café", Lang("none")), (Terms{"cafe"}));
  TokenizerOptions options;
  options.diacritic_sensitive = true;
  EXPECT_EQ(Tokenize("café", Lang("none"), options), (Terms{"café"}));
}

TEST(FtsTokenizerTest, ApostropheSplitsWordsExceptInEnglish) {
  EXPECT_EQ(Tokenize("l'homme", Lang("none")), (Terms{"l", "homme"}));
  EXPECT_EQ(Tokenize("o'neill", Lang("english")).size(), 1u);
}

TEST(FtsTokenizerTest, NoneLanguageNeitherStemsNorDropsStopWords) {
  EXPECT_EQ(Tokenize("the running", Lang("none")), (Terms{"the", "running"}));
}

TEST(FtsTokenizerTest, StemsOtherLanguagesWithTheirSnowballStemmer) {
  EXPECT_EQ(Tokenize("las casas", Lang("spanish")), (Terms{"cas"}));
  EXPECT_EQ(Tokenize("die Häuser", Lang("de")), (Terms{"haus"}));
}

TEST(FtsLanguageTest, NamesAndCodesAnyCaseOtherwiseBadValue) {
  EXPECT_STREQ(FindLanguage("French").value()->name, "french");
  EXPECT_STREQ(FindLanguage("pt").value()->name, "portuguese");
  StatusWith<const Language*> bad = FindLanguage("klingon");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kBadValue);
  EXPECT_EQ(bad.status().reason(), "unsupported language: \"klingon\" for text index version 3");
}

TEST(FtsSpecTest, FixSpecGivesMongoDBsStoredForm) {
  BsonDoc spec = BsonDoc::FromJson(
      R"({"key": {"title": "text", "body": "text"}, "weights": {"title": 10}})");
  StatusWith<BsonDoc> fixed = FixTextIndexSpec(spec.get());
  ASSERT_TRUE(fixed.ok()) << fixed.status().reason();
  EXPECT_EQ(fixed.value().ToJson(),
            BsonDoc::FromJson(R"({"key": {"_fts": "text", "_ftsx": 1},
                "name": "title_text_body_text", "weights": {"body": 1, "title": 10},
                "default_language": "english", "language_override": "language",
                "textIndexVersion": 3})").ToJson());
  // The stored form is a fixed point.
  StatusWith<BsonDoc> again = FixTextIndexSpec(fixed.value().get());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.value().ToJson(), fixed.value().ToJson());
}

TEST(FtsSpecTest, CompoundKeysKeepTheirPlace) {
  BsonDoc spec = BsonDoc::FromJson(R"({"key": {"a": 1, "t": "text", "b": -1}, "name": "x"})");
  StatusWith<BsonDoc> fixed = FixTextIndexSpec(spec.get());
  ASSERT_TRUE(fixed.ok());
  bson_iter_t it;
  ASSERT_TRUE(bson_iter_init_find(&it, fixed.value().get(), "key"));
  bson_t key = bson::SubDocumentView(&it);
  EXPECT_EQ(BsonDoc::CopyOf(&key).ToJson(),
            BsonDoc::FromJson(R"({"a": 1, "_fts": "text", "_ftsx": 1, "b": -1})").ToJson());
}

struct SpecError {
  const char* spec;
  int code;
};

class FtsSpecErrorTest : public ::testing::TestWithParam<SpecError> {};

TEST_P(FtsSpecErrorTest, RefusedWithMongoDBsCode) {
  BsonDoc spec = BsonDoc::FromJson(GetParam().spec);
  StatusWith<BsonDoc> fixed = FixTextIndexSpec(spec.get());
  ASSERT_FALSE(fixed.ok()) << GetParam().spec;
  EXPECT_EQ(fixed.status().code_number(), GetParam().code) << fixed.status().reason();
}

INSTANTIATE_TEST_SUITE_P(
    Specs, FtsSpecErrorTest,
    ::testing::Values(SpecError{R"({"key": {"a": "text"}, "weights": 1})", 17284},
                      SpecError{R"({"key": {"a": "text"}, "weights": {"a": "x"}})", 17283},
                      SpecError{R"({"key": {"a": "text"}, "weights": {"$x": 1}})", 17292},
                      SpecError{R"({"key": {"a": "text"}, "weights": {"a..b": 1}})", 17291},
                      SpecError{R"({"key": {"a": "text"}, "weights": {"a": 100000}})", 16674},
                      SpecError{R"({"key": {"a": "text"}, "default_language": 1})", 17263},
                      SpecError{R"({"key": {"a": "text"}, "default_language": "xx"})", 17264},
                      SpecError{R"({"key": {"a": "text"}, "language_override": "$l"})", 17136},
                      SpecError{R"({"key": {"a": "text"}, "textIndexVersion": 2})", 17364},
                      SpecError{R"({"key": {"a": "text"}, "textIndexVersion": "3"})", 17293},
                      SpecError{R"({"key": {"a": "text", "b": 1, "c": "text"}})", 17389},
                      SpecError{R"({"key": {"_fts": "text", "b": 1}})", 17274},
                      SpecError{R"({"key": {"_ftsx": 1, "a": "text"}})", 17289}));

TextIndexSpec SpecFor(const char* json) {
  BsonDoc spec = BsonDoc::FromJson(json);
  return TextIndexSpec::FromStored(spec.get()).value();
}

double ScoreOf(const TextIndexSpec& spec, const char* doc_json, const std::string& term) {
  BsonDoc doc = BsonDoc::FromJson(doc_json);
  TextIndexSpec::TermScores scores = spec.ScoreDocument(doc.get());
  auto it = scores.find(term);
  return it == scores.end() ? 0 : it->second;
}

TEST(FtsScoreTest, MongoDBsFormula) {
  TextIndexSpec spec = SpecFor(R"({"key": {"a": "text"}})");
  // One of two terms: coeff 0.5 * 1/2 + 0.5.
  EXPECT_DOUBLE_EQ(ScoreOf(spec, R"({"a": "hello world"})", "hello"), 0.75);
  // The whole string is the term: 1.1 boost.
  EXPECT_DOUBLE_EQ(ScoreOf(spec, R"({"a": "hello"})", "hello"), 1.1);
  // Three occurrences: freq 1 + 1/2 + 1/4, coeff 1.
  EXPECT_DOUBLE_EQ(ScoreOf(spec, R"({"a": "run running runs"})", "run"), 1.75);
  // Stop words are not counted in the length.
  EXPECT_DOUBLE_EQ(ScoreOf(spec, R"({"a": "the cat"})", "cat"), 1.0);
  // Strings of an array each count.
  EXPECT_DOUBLE_EQ(ScoreOf(spec, R"({"a": ["cat", "cat dog"]})", "cat"), 1.1 + 0.75);
  // Other fields are not indexed.
  EXPECT_DOUBLE_EQ(ScoreOf(spec, R"({"b": "cat"})", "cat"), 0);
}

TEST(FtsScoreTest, WeightsMultiplyAndFieldsAdd) {
  TextIndexSpec spec = SpecFor(R"({"key": {"a": "text", "b": "text"}, "weights": {"a": 10}})");
  EXPECT_DOUBLE_EQ(ScoreOf(spec, R"({"a": "cat", "b": "cat dog"})", "cat"), 11 + 0.75);
}

TEST(FtsScoreTest, WildcardIndexesEveryStringAndDottedWeights) {
  TextIndexSpec spec =
      SpecFor(R"({"key": {"$**": "text"}, "weights": {"x.y": 3}})");
  EXPECT_DOUBLE_EQ(ScoreOf(spec, R"({"x": {"y": "cat", "z": "cat dog"}})", "cat"), 3.3 + 0.75);
}

TEST(FtsScoreTest, LanguageOverrideChoosesTheStemmer) {
  TextIndexSpec spec = SpecFor(R"({"key": {"a": "text"}})");
  // Spanish drops "las" and stems "casas"; English would keep "las".
  EXPECT_GT(ScoreOf(spec, R"({"a": "las casas", "language": "spanish"})", "cas"), 0);
  EXPECT_GT(ScoreOf(spec, R"({"a": "las casas"})", "las"), 0);
}

TEST(FtsSpecTest, LanguageOverridesMustNameALanguage) {
  TextIndexSpec spec = SpecFor(R"({"key": {"a": "text", "s.b": "text"}})");
  auto check = [&spec](const char* json) {
    BsonDoc doc = BsonDoc::FromJson(json);
    return spec.CheckLanguageOverrides(doc.get());
  };
  EXPECT_TRUE(check(R"({"a": "x", "language": "fr"})").ok());
  EXPECT_EQ(check(R"({"a": "x", "language": 1})").code_number(), 17261);
  EXPECT_EQ(check(R"({"a": "x", "language": "klingon"})").code_number(), 17262);
  EXPECT_EQ(check(R"({"s": [{"b": "x", "language": "klingon"}]})").code_number(), 17262);
  // Subdocuments the index does not read are not checked.
  EXPECT_TRUE(check(R"({"other": {"language": "klingon"}})").ok());
}

std::shared_ptr<const TextQuery> QueryFor(const char* text_json, const char* index_json) {
  BsonDoc operand = BsonDoc::FromJson(text_json);
  bson_iter_t it;
  bson_iter_init_find(&it, operand.get(), "$text");
  StatusWith<TextQueryOptions> options = TextQueryOptions::Parse(&it);
  EXPECT_TRUE(options.ok()) << options.status().reason();
  auto index = std::make_shared<const TextIndexSpec>(SpecFor(index_json));
  return TextQuery::Make(options.value(), index).value();
}

TEST(FtsQueryTest, ParsesTermsPhrasesAndNegations) {
  auto query = QueryFor(R"({"$text": {"$search": "cats -dog \"big cat\" -\"small mouse\" x-y"}})",
                        R"({"key": {"a": "text"}})");
  EXPECT_EQ(query->terms(), (std::set<std::string>{"cat", "big", "x", "y"}));
  EXPECT_EQ(query->negated_terms(), (std::set<std::string>{"dog"}));
  EXPECT_EQ(query->phrases(), (std::vector<std::string>{"big cat"}));
  EXPECT_EQ(query->negated_phrases(), (std::vector<std::string>{"small mouse"}));
}

bool Matches(const TextQuery& query, const char* doc_json) {
  BsonDoc doc = BsonDoc::FromJson(doc_json);
  return query.Matches(doc.get());
}

TEST(FtsQueryTest, MatchesAnyTermNoNegationEveryPhrase) {
  auto query = QueryFor(R"({"$text": {"$search": "coffee tea -decaf"}})", R"({"key": {"a": "text"}})");
  EXPECT_TRUE(Matches(*query, R"({"a": "Coffee shop"})"));
  EXPECT_TRUE(Matches(*query, R"({"a": "green teas"})"));
  EXPECT_FALSE(Matches(*query, R"({"a": "decaf coffee"})"));
  EXPECT_FALSE(Matches(*query, R"({"a": "water"})"));
  auto phrase = QueryFor(R"({"$text": {"$search": "\"hot coffee\""}})", R"({"key": {"a": "text"}})");
  EXPECT_TRUE(Matches(*phrase, R"({"a": "Some HOT coffee please"})"));
  EXPECT_FALSE(Matches(*phrase, R"({"a": "coffee, hot"})"));
  auto only_negation = QueryFor(R"({"$text": {"$search": "-coffee"}})", R"({"key": {"a": "text"}})");
  EXPECT_FALSE(Matches(*only_negation, R"({"a": "tea"})"));
}

TEST(FtsQueryTest, CaseAndDiacriticSensitivity) {
  auto cs = QueryFor(R"({"$text": {"$search": "Coffee", "$caseSensitive": true}})",
                     R"({"key": {"a": "text"}})");
  EXPECT_TRUE(Matches(*cs, R"({"a": "Coffee"})"));
  EXPECT_FALSE(Matches(*cs, R"({"a": "coffee"})"));
  auto ds = QueryFor(R"({"$text": {"$search": "café", "$diacriticSensitive": true}})",
                     R"({"key": {"a": "text"}, "default_language": "none"})");
  EXPECT_TRUE(Matches(*ds, R"({"a": "café"})"));
  EXPECT_FALSE(Matches(*ds, R"({"a": "cafe"})"));
  auto di = QueryFor(R"({"$text": {"$search": "café"}})",
                     R"({"key": {"a": "text"}, "default_language": "none"})");
  EXPECT_TRUE(Matches(*di, R"({"a": "CAFE"})"));
}

TEST(FtsQueryTest, ScoreSumsTheQueryTerms) {
  auto query = QueryFor(R"({"$text": {"$search": "hello world"}})", R"({"key": {"a": "text"}})");
  BsonDoc doc = BsonDoc::FromJson(R"({"a": "hello world"})");
  EXPECT_DOUBLE_EQ(query->Score(doc.get()), 1.5);
}

struct OperandError {
  const char* json;
  ErrorCode code;
  const char* message;
};

class FtsOperandErrorTest : public ::testing::TestWithParam<OperandError> {};

TEST_P(FtsOperandErrorTest, RefusedAsMongoDB) {
  BsonDoc operand = BsonDoc::FromJson(GetParam().json);
  bson_iter_t it;
  bson_iter_init_find(&it, operand.get(), "$text");
  StatusWith<TextQueryOptions> options = TextQueryOptions::Parse(&it);
  ASSERT_FALSE(options.ok());
  EXPECT_EQ(options.status().code(), GetParam().code);
  EXPECT_EQ(options.status().reason(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Operands, FtsOperandErrorTest,
    ::testing::Values(
        OperandError{R"({"$text": 1})", ErrorCode::kBadValue, "$text expects an object"},
        OperandError{R"({"$text": {}})", ErrorCode::kTypeMismatch, "$search requires a string value"},
        OperandError{R"({"$text": {"$search": 1}})", ErrorCode::kTypeMismatch,
                     "$search requires a string value"},
        OperandError{R"({"$text": {"$search": "a", "$language": 1}})", ErrorCode::kTypeMismatch,
                     "$language requires a string value"},
        OperandError{R"({"$text": {"$search": "a", "$caseSensitive": 1}})",
                     ErrorCode::kTypeMismatch, "$caseSensitive requires a boolean value"},
        OperandError{R"({"$text": {"$search": "a", "$diacriticSensitive": "x"}})",
                     ErrorCode::kTypeMismatch, "$diacriticSensitive requires a boolean value"},
        OperandError{R"({"$text": {"$search": "a", "x": 1}})", ErrorCode::kBadValue,
                     "extra fields in $text"}));

}  // namespace
}  // namespace tigerdoc::fts
