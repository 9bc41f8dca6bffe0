#include "engine/base/status.h"

#include <gtest/gtest.h>

namespace tigerdoc {
namespace {

TEST(StatusTest, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kOK);
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeNameAndReason) {
  Status s(ErrorCode::kDuplicateKey, "E11000 duplicate key error");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code_number(), 11000);
  EXPECT_EQ(ErrorCodeName(s.code()), "DuplicateKey");
  EXPECT_EQ(s.reason(), "E11000 duplicate key error");
}

TEST(StatusTest, UnregisteredCodeIsNamedLocation) {
  EXPECT_EQ(ErrorCodeName(static_cast<ErrorCode>(4242)), "Location4242");
}

StatusWith<int> Half(int x) {
  if (x % 2) return Status(ErrorCode::kBadValue, "odd");
  return x / 2;
}

Status UseHalf(int x, int* out) {
  ASSIGN_OR_RETURN(*out, Half(x));
  return Status::OK();
}

TEST(StatusTest, AssignOrReturnPropagatesErrors) {
  int out = 0;
  EXPECT_TRUE(UseHalf(8, &out).ok());
  EXPECT_EQ(out, 4);
  Status s = UseHalf(7, &out);
  EXPECT_EQ(s.code(), ErrorCode::kBadValue);
}

}  // namespace
}  // namespace tigerdoc
