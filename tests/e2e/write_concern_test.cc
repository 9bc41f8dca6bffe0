// writeConcern w:0 through libmongoc's generic command path (which, unlike
// mongosh, reads the reply): MongoDB replies exactly {ok: 1} to an
// unacknowledged write, with no n and no writeErrors, even when a statement
// failed. The refusals of other w values are in
// shell_tests/write_concern_standalone.js.
#include "tests/e2e/e2e_test_base.h"

namespace tigerdoc::e2e {
namespace {

using testutil::CanonicalJson;
using testutil::DocArray;

class WriteConcernTest : public E2eTest {};

TEST_F(WriteConcernTest, UnacknowledgedWritesReplyExactlyOk) {
  const std::string ok = CanonicalJson(R"({"ok": 1.0})");
  EXPECT_EQ(CanonicalJson(Run(R"({"insert": "c", "documents": [{"_id": 1}, {"_id": 2}],
                                  "writeConcern": {"w": 0}})")),
            ok);
  // A duplicate key is not reported either.
  EXPECT_EQ(CanonicalJson(Run(R"({"insert": "c", "documents": [{"_id": 1}],
                                  "writeConcern": {"w": 0}})")),
            ok);
  EXPECT_EQ(CanonicalJson(Run(R"({"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"x": 1}}}],
                                  "writeConcern": {"w": 0}})")),
            ok);
  EXPECT_EQ(CanonicalJson(Run(R"({"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}],
                                  "writeConcern": {"w": 0}})")),
            ok);
  BsonDoc r = Run(R"({"find": "c", "sort": {"_id": 1}})");
  std::vector<std::string> docs;
  for (const auto& d : DocArray(r, "cursor.firstBatch")) docs.push_back(CanonicalJson(d));
  EXPECT_EQ(docs, (std::vector<std::string>{CanonicalJson(R"({"_id": 1, "x": 1})")}));
  // w: 1 still reports n.
  BsonDoc acked = Run(R"({"insert": "c", "documents": [{"_id": 3}], "writeConcern": {"w": 1}})");
  EXPECT_EQ(testutil::Integer(acked, "n"), 1) << testutil::Json(acked);
}

}  // namespace
}  // namespace tigerdoc::e2e
