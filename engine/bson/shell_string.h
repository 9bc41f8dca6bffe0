#pragma once
// ToShellString: renders BSON the way MongoDB's BSONObj::toString() does in
// server error messages, e.g. the duplicate key error's
//   dup key: { _id: ObjectId('5f1d7a1b2c3d4e5f60718293') }
// Forms: { a: 1, b: "x" } (empty {} and []), [ 1, 2 ], 1.0 / 1.5 / 1e+20.0
// for doubles (printf %.16g plus ".0" when that has no '.', 'E' or 'N'),
// int64 as plain digits, decimal128 as its scientific string, new Date(ms),
// Timestamp(secs, inc), ObjectId('hex'), BinData(subtype, HEX) or UUID("..."),
// /pattern/flags, MinKey, MaxKey, undefined, null, true/false. As in MongoDB,
// strings longer than 159 bytes, code longer than 79 bytes and binary data
// longer than 80 bytes are truncated with "...", and nesting deeper than 100
// levels prints "...".
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <string>

namespace tigerdoc::bson {

// A whole document: "{ name: value, ... }" or "{}".
std::string ToShellString(const bson_t* doc);

// The value `value` points at, without its field name ("1", "{ a: 1 }").
// REQUIRES: `value` is positioned on an element.
std::string ToShellString(const bson_iter_t* value);

}  // namespace tigerdoc::bson
