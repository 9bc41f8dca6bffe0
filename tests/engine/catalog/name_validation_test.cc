// Database and collection name rules, with mongod's codes and messages.

#include <gtest/gtest.h>

#include <string>

#include "engine/catalog/catalog.h"

namespace tigerdoc::catalog {
namespace {

struct NameCase {
  std::string db;
  std::string coll;
  std::string message;  // empty: valid
};

class ValidateNamespaceTest : public ::testing::TestWithParam<NameCase> {};

TEST_P(ValidateNamespaceTest, MatchesMongod) {
  const NameCase& c = GetParam();
  Status st = Catalog::ValidateNamespace(c.db, c.coll);
  if (c.message.empty()) {
    EXPECT_TRUE(st.ok()) << st.ToString();
  } else {
    EXPECT_EQ(st.code_number(), 73);
    EXPECT_EQ(st.reason(), c.message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Names, ValidateNamespaceTest,
    ::testing::Values(
        NameCase{"test", "coll", ""}, NameCase{"--", "c", ""}, NameCase{"0prefix", "c", ""},
        NameCase{std::string(63, 'a'), "c", ""}, NameCase{"test", "a.b", ""},
        NameCase{"test", "system.users", ""}, NameCase{"test", "system.js", ""},
        NameCase{"test", "system.profile", ""}, NameCase{"admin", "system.roles", ""},
        NameCase{"test", "system.buckets.m", ""},
        NameCase{"データベース", "c", ""},
        NameCase{std::string(64, 'a'), "c", "db name must be at most 63 characters, found: 64"},
        NameCase{"database.test", "c", "'.' is an invalid character in a db name: database.test"},
        NameCase{std::string("a\0b", 3), "c", "database names cannot have embedded null characters"},
        NameCase{"/", "c", "Invalid namespace specified '/.c'"},
        NameCase{"\\", "c", "Invalid namespace specified '\\.c'"},
        NameCase{"data base", "c", "Invalid namespace specified 'data base.c'"},
        NameCase{"q\"uote", "c", "Invalid namespace specified 'q\"uote.c'"},
        NameCase{"name_with_a-$", "c", "Invalid namespace: name_with_a-$.c"},
        NameCase{"", "c", "Invalid database name: ''"},
        NameCase{"test", "", "Invalid namespace specified: test"},
        NameCase{"test", "a$b", "Invalid collection name: a$b"},
        NameCase{"test", ".a", "Collection names cannot start with '.': .a"},
        NameCase{"test", std::string("a\0b", 3), "namespaces cannot have embedded null characters"},
        NameCase{"test", "system.foo", "Invalid system namespace: test.system.foo"},
        NameCase{"test", "system.roles", "Invalid system namespace: test.system.roles"},
        NameCase{"db", std::string(252, 'x'), ""},  // "db." + 252 = 255 bytes
        NameCase{"db", std::string(253, 'x'),
                 "Fully qualified namespace is too long. Namespace: db." + std::string(253, 'x') +
                     " Max: 255"}));

TEST(ValidateDbNameTest, StandaloneDatabaseNames) {
  EXPECT_TRUE(Catalog::ValidateDbName("test").ok());
  EXPECT_EQ(Catalog::ValidateDbName("").reason(), "Invalid database name: ''");
  EXPECT_EQ(Catalog::ValidateDbName("a b").reason(), "Invalid database name: 'a b'");
  EXPECT_EQ(Catalog::ValidateDbName("a$").reason(), "Invalid database name: 'a$'");
  EXPECT_EQ(Catalog::ValidateDbName("a.b").code_number(), 73);
  EXPECT_EQ(Catalog::ValidateDbName(std::string(64, 'd')).code_number(), 73);
}

TEST(ValidateCollectionNameTest, StandaloneCollectionNames) {
  EXPECT_TRUE(Catalog::ValidateCollectionName("c").ok());
  EXPECT_TRUE(Catalog::ValidateCollectionName("a.b.c").ok());
  EXPECT_EQ(Catalog::ValidateCollectionName("").code_number(), 73);
  EXPECT_EQ(Catalog::ValidateCollectionName("x$").reason(), "Invalid collection name: x$");
  EXPECT_EQ(Catalog::ValidateCollectionName(".x").code_number(), 73);
}

}  // namespace
}  // namespace tigerdoc::catalog
