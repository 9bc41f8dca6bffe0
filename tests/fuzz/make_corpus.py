#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets: tests/fuzz/corpus/<target>/.

Run after changing a seed below: python3 tests/fuzz/make_corpus.py
The corpora are committed, so CI needs neither this script's output nor
python packages (the BSON encoder is the few lines below).

Structure-aware inputs (fuzz_input.h) are BSON documents back to back: the
specification first, then the documents it applies to.
"""

import os
import shutil
import struct
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


class Int64(int):
    pass


class Raw:
    """A value given as its BSON type byte and encoded bytes."""

    def __init__(self, type_byte, data):
        self.type_byte, self.data = type_byte, data


def decimal(coefficient, exponent=0):
    """A decimal128 (BID, small coefficient): coefficient * 10^exponent."""
    sign = 1 if coefficient < 0 else 0
    high = (sign << 63) | ((exponent + 6176) << 49)
    return Raw(0x13, struct.pack("<QQ", abs(coefficient), high))


NAN_DECIMAL = Raw(0x13, struct.pack("<QQ", 0, 0x7C00000000000000))
DATE = Raw(0x09, struct.pack("<q", 1709208000000))
OID = Raw(0x07, bytes.fromhex("65e0f1a2b3c4d5e6f7a8b9c0"))
MINKEY = Raw(0xFF, b"")
MAXKEY = Raw(0x7F, b"")
TIMESTAMP = Raw(0x11, struct.pack("<II", 1, 1700000000))
BINARY = Raw(0x05, struct.pack("<i", 3) + b"\x00abc")
UUID = Raw(0x05, struct.pack("<i", 16) + b"\x04" + bytes(range(16)))
REGEX = Raw(0x0B, b"^a.c\x00i\x00")
UNDEFINED = Raw(0x06, b"")


def cstring(s):
    return s.encode() + b"\x00"


def element(key, value):
    k = cstring(key)
    if isinstance(value, Raw):
        return bytes([value.type_byte]) + k + value.data
    if isinstance(value, bool):
        return b"\x08" + k + (b"\x01" if value else b"\x00")
    if isinstance(value, Int64):
        return b"\x12" + k + struct.pack("<q", value)
    if isinstance(value, int):
        if -(2**31) <= value < 2**31:
            return b"\x10" + k + struct.pack("<i", value)
        return b"\x12" + k + struct.pack("<q", value)
    if isinstance(value, float):
        return b"\x01" + k + struct.pack("<d", value)
    if isinstance(value, str):
        s = value.encode()
        return b"\x02" + k + struct.pack("<i", len(s) + 1) + s + b"\x00"
    if value is None:
        return b"\x0A" + k
    if isinstance(value, dict):
        return b"\x03" + k + bson(value)
    if isinstance(value, list):
        return b"\x04" + k + bson({str(i): v for i, v in enumerate(value)})
    raise TypeError(type(value))


def bson(doc):
    body = b"".join(element(k, v) for k, v in doc.items())
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def docs(*ds):
    return b"".join(bson(d) for d in ds)


def pipeline(*stages):
    return {str(i): s for i, s in enumerate(stages)}


# Documents the specifications are applied to.
D1 = {"_id": 1, "a": 1, "b": "xyz", "c": [1, 2.5, {"d": 3}, [4]], "e": {"f": None, "g": Int64(7)}}
D2 = {"_id": OID, "a": [1, 5, 9], "b": {"c": [{"d": 1, "e": "x"}, {"d": 2, "e": "y"}]}, "t": DATE}
D3 = {"_id": "s", "a": decimal(15, -1), "n": NAN_DECIMAL, "x": -0.0, "y": float("inf"), "r": REGEX,
      "bin": UUID, "ts": TIMESTAMP, "lo": MINKEY, "hi": MAXKEY, "u": UNDEFINED}
D4 = {"_id": 4, "s": "Hello, World", "arr": [], "nested": {"a": {"b": {"c": [1, [2, [3]]]}}}}
TARGETS = [D1, D2, D3, D4]


# --- crc32c (Castagnoli), for OP_MSG checksums ---
def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def header(length, op_code, request_id=7, response_to=0):
    return struct.pack("<iiii", length, request_id, response_to, op_code)


def op_msg(body, sequences=(), flags=0, checksum=False):
    payload = struct.pack("<I", flags | (1 if checksum else 0)) + b"\x00" + bson(body)
    for ident, seq_docs in sequences:
        section = cstring(ident) + b"".join(bson(d) for d in seq_docs)
        payload += b"\x01" + struct.pack("<i", len(section) + 4) + section
    length = 16 + len(payload) + (4 if checksum else 0)
    message = header(length, 2013) + payload
    if checksum:
        message += struct.pack("<I", crc32c(message))
    return message


def op_query(ns, query, flags=0):
    payload = struct.pack("<i", flags) + cstring(ns) + struct.pack("<ii", 0, -1) + bson(query)
    return header(16 + len(payload), 2004) + payload


def op_compressed(inner):
    payload = struct.pack("<iiB", 2013, len(inner) - 16, 0) + inner[16:]
    return header(16 + len(payload), 2012) + payload


MESSAGES = [
    op_msg({"hello": 1, "$db": "admin"}),
    op_msg({"ping": 1, "$db": "admin"}, checksum=True),
    op_msg({"insert": "c", "$db": "db"}, [("documents", [D1, D2])]),
    op_msg({"update": "c", "$db": "db"}, [("updates", [{"q": {"a": 1}, "u": {"$set": {"b": 2}}}])]),
    op_msg({"find": "c", "filter": {"a": {"$gt": 1}}, "$db": "db"}, flags=1 << 16),
    op_msg({"insert": "c", "$db": "db"}, [("documents", [D3])], flags=1 << 1),  # moreToCome
    op_msg({"getMore": Int64(5), "collection": "c", "$db": "db"}),
    op_msg({"aggregate": "c", "pipeline": [{"$match": {}}], "cursor": {}, "$db": "db"}),
    op_query("admin.$cmd", {"isMaster": 1, "helloOk": True, "client": {"driver": {"name": "x"}}}),
    op_query("admin.$cmd", {"$query": {"ismaster": 1}, "$readPreference": {"mode": "primary"}}),
    op_query("db.c", {"a": 1}),
    op_compressed(op_msg({"ping": 1, "$db": "admin"})),
    header(16, 2013),
]

BSON_DOCS = [bson(d) for d in TARGETS] + [
    bson({}),
    bson({"": None, "a\u00e9": "\u00fc\u20ac", "z": "a\x00b"}),
    bson({"n": [1, Int64(1), 1.0, decimal(10, -1), -0.0, float("nan"), NAN_DECIMAL, 2**31, Int64(2**53 + 1)]}),
    bson({"s": ["", "a", "ab", "b", BINARY, OID, False, True, DATE, TIMESTAMP, REGEX, None, MINKEY, MAXKEY]}),
    bson({"x": {"y": {"z": {"w": [[[{}]]]}}}}),
    bson({"code": Raw(0x0D, struct.pack("<i", 2) + b"x\x00"),
          "sym": Raw(0x0E, struct.pack("<i", 2) + b"y\x00"),
          "dbp": Raw(0x0C, struct.pack("<i", 2) + b"n\x00" + OID.data)}),
    bson({"d": [float("inf"), float("-inf"), 1e308, 5e-324, decimal(1, 6000), decimal(-1, -6000)]}),
]

FILTERS = [
    {"a": 1},
    {"a": {"$gt": 0, "$lte": 5}, "b": {"$in": ["xyz", 2, None]}},
    {"$or": [{"a": {"$exists": False}}, {"c.d": 3}], "$nor": [{"b": {"$type": "string"}}]},
    {"c": {"$elemMatch": {"d": {"$gte": 3}}}, "a": {"$not": {"$lt": 0}}},
    {"b": {"$regex": "^x", "$options": "i"}, "_id": {"$ne": 2}},
    {"$expr": {"$gt": [{"$add": ["$a", 1]}, {"$size": {"$ifNull": ["$c", []]}}]}},
    {"a": {"$mod": [2, 1]}, "e.g": {"$bitsAllSet": [0, 1]}},
    {"c": {"$all": [1, 2.5], "$size": 4}, "e.f": None},
    {"a": {"$in": [1, 5]}, "b.c.d": {"$lt": 2}},
    {"$and": [{"a": {"$type": ["int", "double"]}}, {"t": {"$gte": DATE}}]},
    {"$jsonSchema": {"required": ["a"], "properties": {"a": {"bsonType": "int"}}}},
    {"a": {"$eq": decimal(1)}, "n": {"$ne": NAN_DECIMAL}, "$comment": "x"},
]

UPDATES = [
    {"$set": {"a": 2, "e.new": [1]}, "$inc": {"x": 1}},
    {"$unset": {"b": ""}, "$rename": {"a": "z"}, "$currentDate": {"t": True}},
    {"$push": {"c": {"$each": [5, 6], "$slice": -3, "$sort": 1, "$position": 0}}},
    {"$addToSet": {"c": {"$each": [1, 7]}}, "$pull": {"a": {"$gt": 4}}, "$pop": {"arr": 1}},
    {"$min": {"a": 0}, "$max": {"z": decimal(5)}, "$mul": {"e.g": 2.5}, "$setOnInsert": {"s": 1}},
    {"$bit": {"a": {"and": 3, "or": Int64(8)}}},
    {"b": "replacement", "n": [1, 2]},
    {"q": {"c": {"$elemMatch": {"d": 3}}}, "u": {"$set": {"c.$.d": 4}}},
    {"q": {}, "u": {"$set": {"b.c.$[x].e": "z"}}, "arrayFilters": [{"x.d": {"$gt": 1}}]},
    {"q": {"a": 1}, "u": {"$inc": {"c.$[].d": 1}}},
    {"q": {"_id": 9, "k": {"$eq": 3}}, "u": [{"$set": {"s": {"$concat": ["$b", "!"]}}}, {"$unset": "e"}]},
    {"q": {}, "u": [{"$replaceWith": {"$mergeObjects": ["$$ROOT", {"v": "$$val"}]}}], "c": {"val": 1}},
]

PIPELINES = [
    pipeline({"$match": {"a": {"$gte": 1}}}, {"$project": {"a": 1, "s": {"$toString": "$a"}}}),
    pipeline({"$group": {"_id": "$a", "n": {"$sum": 1}, "all": {"$push": "$$ROOT"}}}, {"$sort": {"n": -1}}),
    pipeline({"$unwind": {"path": "$c", "includeArrayIndex": "i", "preserveNullAndEmptyArrays": True}},
             {"$limit": 5}, {"$skip": 1}),
    pipeline({"$addFields": {"x": {"$map": {"input": "$c", "as": "v", "in": {"$type": "$$v"}}}}},
             {"$unset": ["b"]}),
    pipeline({"$facet": {"f1": [{"$count": "n"}], "f2": [{"$sortByCount": "$b"}]}}),
    pipeline({"$bucket": {"groupBy": "$a", "boundaries": [0, 5, 10], "default": "other"}}),
    pipeline({"$bucketAuto": {"groupBy": "$_id", "buckets": 2}}, {"$replaceRoot": {"newRoot": "$_id"}}),
    pipeline({"$lookup": {"from": "c", "localField": "a", "foreignField": "a", "as": "j"}},
             {"$unionWith": {"coll": "c", "pipeline": [{"$match": {"a": 1}}]}}),
    pipeline({"$setWindowFields": {"sortBy": {"a": 1},
                                   "output": {"r": {"$rank": {}}, "s": {"$sum": "$a", "window": {"documents": [-1, 1]}}}}}),
    pipeline({"$densify": {"field": "a", "range": {"step": 1, "bounds": "full"}}},
             {"$fill": {"sortBy": {"a": 1}, "output": {"b": {"method": "locf"}}}}),
    pipeline({"$graphLookup": {"from": "c", "startWith": "$a", "connectFromField": "a",
                               "connectToField": "_id", "as": "g", "maxDepth": 2}}),
    pipeline({"$documents": [{"x": 1}, {"x": 2}]}, {"$sample": {"size": 1}}, {"$redact": "$$KEEP"}),
]

PROJECTIONS = [
    {"a": 1, "b": 1},
    {"_id": 0, "c": 0, "e.f": 0},
    {"a": 1, "sum": {"$add": ["$a", 2, "$e.g"]}, "s": {"$substrCP": ["$b", 0, 2]}},
    {"c": {"$slice": [1, 2]}, "a": 1},
    {"c": {"$elemMatch": {"d": 3}}},
    {"d": {"$dateToString": {"date": "$t", "format": "%Y-%m-%d"}}, "n": {"$strLenBytes": "$b"}},
    {"f": {"$filter": {"input": "$c", "cond": {"$isNumber": "$$this"}}}, "z": {"$literal": 1}},
    {"cond": {"$cond": [{"$gt": ["$a", 0]}, "pos", "neg"]}, "sw": {"$switch": {
        "branches": [{"case": {"$eq": ["$a", 1]}, "then": "one"}], "default": "other"}}},
    {"r": {"$reduce": {"input": "$c", "initialValue": 0, "in": {"$add": ["$$value", 1]}}},
     "o": {"$objectToArray": "$e"}},
    {"x": {"$let": {"vars": {"v": "$a"}, "in": {"$multiply": ["$$v", decimal(25, -1)]}}},
     "m": {"$regexFind": {"input": "$b", "regex": "y"}}},
    {"b.c": 1, "t": {"$dateFromString": {"dateString": "2024-02-29", "onError": DATE}}},
    {"sz": {"$size": {"$ifNull": ["$c", []]}}, "rt": {"$round": ["$a", 1]}, "cv": {"$convert": {
        "input": "$b", "to": "int", "onError": 0}}},
]


def write(target, inputs):
    folder = os.path.join(OUT, target)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    for i, data in enumerate(inputs):
        with open(os.path.join(folder, "seed%02d" % i), "wb") as f:
            f.write(data)


def with_targets(specs):
    # Each spec alone, with one document, and with all of them.
    out = []
    for i, spec in enumerate(specs):
        choice = i % 3
        if choice == 0:
            out.append(docs(spec))
        elif choice == 1:
            out.append(docs(spec, TARGETS[i % len(TARGETS)]))
        else:
            out.append(docs(spec, *TARGETS))
    return out


def main():
    write("message_fuzzer", MESSAGES)
    write("bson_fuzzer", BSON_DOCS)
    write("matcher_fuzzer", with_targets(FILTERS))
    write("update_fuzzer", with_targets(UPDATES))
    write("pipeline_fuzzer", with_targets(PIPELINES))
    write("projection_fuzzer", with_targets(PROJECTIONS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
