// $bit: and / or / xor on int32 and int64 (MongoDB's manual and
// src/mongo/db/update/bit_node.cpp).

#include <gtest/gtest.h>

#include "tests/engine/update/update_test_util.h"

namespace tigerdoc::update {
namespace {

using testing_update::Case;
using testing_update::ErrorCase;

class BitTest : public testing::TestWithParam<Case> {};
TEST_P(BitTest, AppliesLikeMongoDB) { testing_update::ExpectApplies(GetParam()); }

class BitErrorTest : public testing::TestWithParam<ErrorCase> {};
TEST_P(BitErrorTest, FailsLikeMongoDB) { testing_update::ExpectFails(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Operations, BitTest, testing::Values(
    // Manual: 1101 & 1010 = 1000.
    Case{R"({"%bit": {"expdata": {"and": 10}}})", R"({"_id": 1, "expdata": 13})",
         R"({"_id": 1, "expdata": 8})", true},
    // int64 with an int32 operand stays int64: 0011 | 0101 = 0111.
    Case{R"({"%bit": {"expdata": {"or": 5}}})", R"({"_id": 2, "expdata": {"$numberLong": "3"}})",
         R"({"_id": 2, "expdata": {"$numberLong": "7"}})", true},
    Case{R"({"%bit": {"expdata": {"xor": 5}}})", R"({"_id": 3, "expdata": {"$numberLong": "1"}})",
         R"({"_id": 3, "expdata": {"$numberLong": "4"}})", true},
    // int32 with an int64 operand becomes int64, even when the value is the same.
    Case{R"({"%bit": {"a": {"and": {"$numberLong": "5"}}}})", R"({"_id": 1, "a": 5})",
         R"({"_id": 1, "a": {"$numberLong": "5"}})", true},
    Case{R"({"%bit": {"a": {"and": 5}}})", R"({"_id": 1, "a": 5})", R"({"_id": 1, "a": 5})", false},
    // Operations apply in the order given.
    Case{R"({"%bit": {"a": {"and": 10, "or": 1}}})", R"({"_id": 1, "a": 12})",
         R"({"_id": 1, "a": 9})", true},
    Case{R"({"%bit": {"a": {"or": 1, "and": 10}}})", R"({"_id": 1, "a": 12})",
         R"({"_id": 1, "a": 8})", true},
    // A missing field starts as int32 0.
    Case{R"({"%bit": {"a": {"or": 5}}})", R"({"_id": 1})", R"({"_id": 1, "a": 5})", true},
    Case{R"({"%bit": {"a.b": {"xor": {"$numberLong": "6"}}}})", R"({"_id": 1})",
         R"({"_id": 1, "a": {"b": {"$numberLong": "6"}}})", true},
    Case{R"({"%bit": {"a": {"and": 5}}})", R"({"_id": 1})", R"({"_id": 1, "a": 0})", true},
    // Negative values: two's complement.
    Case{R"({"%bit": {"a": {"and": 255}}})", R"({"_id": 1, "a": -1})", R"({"_id": 1, "a": 255})", true},
    Case{R"({"%bit": {"a": {"xor": -1}}})", R"({"_id": 1, "a": {"$numberLong": "0"}})",
         R"({"_id": 1, "a": {"$numberLong": "-1"}})", true},
    Case{R"({"%bit": {"a.1": {"or": 2}}})", R"({"_id": 1, "a": [1, 1]})",
         R"({"_id": 1, "a": [1, 3]})", true}));

INSTANTIATE_TEST_SUITE_P(Errors, BitErrorTest, testing::Values(
    ErrorCase{R"({"%bit": {"a": 5}})", nullptr, 2,
              "The $bit modifier is not compatible with a int. You must pass in an embedded "
              "document: {$bit: {field: {and/or/xor: #}}"},
    ErrorCase{R"({"%bit": {"a": {"nand": 1}}})", nullptr, 2,
              "The $bit modifier only supports 'and', 'or', and 'xor', not 'nand' which is an "
              "unknown operator: {nand: 1}"},
    ErrorCase{R"({"%bit": {"a": {"and": 1.0}}})", nullptr, 2,
              "The $bit modifier field must be an Integer(32/64 bit); a 'double' is not supported "
              "here: {and: 1.0}"},
    ErrorCase{R"({"%bit": {"a": {"or": "1"}}})", nullptr, 2,
              "The $bit modifier field must be an Integer(32/64 bit); a 'string' is not supported "
              "here: {or: \"1\"}"},
    ErrorCase{R"({"%bit": {"a": {}}})", nullptr, 2,
              "You must pass in at least one bitwise operation. The format is: {$bit: {field: "
              "{and/or/xor: #}}"},
    ErrorCase{R"({"%bit": {"a": {"and": 1}}})", R"({"_id": 1, "a": "x"})", 2,
              "Cannot apply $bit to a value of non-integral type._id: 1 has the field a of "
              "non-integer type string"},
    ErrorCase{R"({"%bit": {"a": {"and": 1}}})", R"({"_id": 1, "a": 1.0})", 2,
              "Cannot apply $bit to a value of non-integral type._id: 1 has the field a of "
              "non-integer type double"},
    ErrorCase{R"({"%bit": {"a.b": {"and": 1}}})", R"({"_id": 1, "a": 1})", 28,
              "Cannot create field 'b' in element {a: 1}"}));

}  // namespace
}  // namespace tigerdoc::update
