#pragma once
// Test helpers for engine/agg: JSON literals (with '%' standing for '$',
// see tests/engine/query/test_json.h), expression evaluation, and running
// pipelines over in-memory documents.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/agg/expressions/expression.h"
#include "engine/agg/pipeline.h"
#include "engine/bson/compare.h"
#include "engine/query/matcher/matcher.h"
#include "tests/engine/query/test_json.h"

namespace tigerdoc::agg::testing {

inline bson::BsonDoc J(const std::string& json) { return testing_json::Json(json); }

// Evaluates the expression in {"e": <expr>} against `doc_json`; the result
// as {"v": value} (missing -> {}).
inline StatusWith<bson::BsonDoc> Eval(const std::string& expr_json, const std::string& doc_json,
                                      const ExpressionContext& ctx = ExpressionContext()) {
  bson::BsonDoc wrapper = J("{\"e\": " + expr_json + "}");
  bson::BsonDoc doc = J(doc_json);
  bson_iter_t it;
  bson_iter_init_find(&it, wrapper.get(), "e");
  ParseContext pctx(&ctx);
  ASSIGN_OR_RETURN(ExpressionPtr e, ParseOperand(&it, &pctx));
  ASSIGN_OR_RETURN(Value v, EvaluateOn(*e, doc.get(), ctx));
  bson::BsonDoc out;
  v.AppendTo(out.mutable_get(), "v");
  return out;
}

// Documents equal field by field, types included (1 and 1.0 differ).
inline bool SameDocs(const bson_t* a, const bson_t* b) {
  return a->len == b->len && memcmp(bson_get_data(a), bson_get_data(b), a->len) == 0;
}

// One row of a stage table: a pipeline over `input`, and the exact output
// documents (in order) or the error code.
struct StageCase {
  const char* name;
  const char* pipeline;
  std::vector<std::string> input;
  std::vector<std::string> expected;
  int error = 0;
};
inline void PrintTo(const StageCase& c, std::ostream* os) { *os << c.name << ": " << c.pipeline; }

// Expects `got` to be exactly the documents `want` (JSON), in order.
inline void ExpectSameDocs(const std::vector<bson::BsonDoc>& got, const std::vector<std::string>& want) {
  std::string got_json;
  for (const auto& d : got) got_json += d.ToJson() + "\n";
  ASSERT_EQ(got.size(), want.size()) << got_json;
  for (size_t i = 0; i < want.size(); ++i) {
    bson::BsonDoc w = testing_json::Json(want[i]);
    EXPECT_TRUE(SameDocs(got[i].get(), w.get()))
        << "doc " << i << ": got " << got[i].ToJson() << " want " << w.ToJson();
  }
}

inline std::vector<bson::BsonDoc> Docs(const std::vector<std::string>& jsons) {
  std::vector<bson::BsonDoc> out;
  for (const auto& j : jsons) out.push_back(J(j));
  return out;
}

inline StatusWith<std::vector<bson::BsonDoc>> RunPipeline(const std::string& pipeline_json,
                                                          const std::vector<std::string>& input,
                                                          const ExpressionContext& ctx = ExpressionContext()) {
  bson::BsonDoc wrapper = J("{\"p\": " + pipeline_json + "}");
  bson_iter_t it;
  bson_iter_init_find(&it, wrapper.get(), "p");
  uint32_t len;
  const uint8_t* data;
  bson_iter_array(&it, &len, &data);
  bson_t arr;
  bson_init_static(&arr, data, len);
  ASSIGN_OR_RETURN(Pipeline p, Pipeline::Parse(&arr, ctx));
  return RunToVector(p, std::make_unique<VectorDocumentSource>(Docs(input)));
}

// Runs one table row and expects its output documents or its error code.
inline void ExpectStageCase(const StageCase& c) {
  auto out = RunPipeline(c.pipeline, c.input);
  if (c.error != 0) {
    ASSERT_FALSE(out.ok()) << "expected error " << c.error;
    EXPECT_EQ(out.status().code_number(), c.error) << out.status().ToString();
    return;
  }
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectSameDocs(out.value(), c.expected);
}

// An in-memory CollectionResolver: collections of documents, filtered with
// the real Matcher.
class MemoryResolver : public CollectionResolver {
 public:
  void Add(const std::string& coll, const std::vector<std::string>& docs) {
    colls_[coll] = Docs(docs);
  }
  StatusWith<std::unique_ptr<DocumentSource>> Open(std::string_view, std::string_view coll,
                                                   const bson_t* filter) override {
    ++opens_;
    ASSIGN_OR_RETURN(auto matcher, query::Matcher::Parse(filter));
    std::vector<bson::BsonDoc> out;
    auto it = colls_.find(std::string(coll));
    if (it != colls_.end()) {
      for (const auto& d : it->second) {
        if (matcher->Matches(d.get())) out.push_back(d.Copy());
      }
    }
    return std::unique_ptr<DocumentSource>(std::make_unique<VectorDocumentSource>(std::move(out)));
  }
  int opens() const { return opens_; }

 private:
  std::map<std::string, std::vector<bson::BsonDoc>> colls_;
  int opens_ = 0;
};

}  // namespace tigerdoc::agg::testing
