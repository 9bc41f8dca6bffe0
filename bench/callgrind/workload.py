#!/usr/bin/env python3
"""A fixed, repeatable client workload for profiling the server under callgrind.

Wall-clock rates on the shared 2-core machine are noise; instruction counts of
the server under `valgrind --tool=callgrind` are not, provided the client sends
exactly the same bytes every time. This client speaks OP_MSG over a raw socket
(no driver, so nothing varies between runs) and sends the commands libmongoc
sends for the bench's operations, lsid included:

  setup N        into a fresh server: insert N documents {_id: NumberLong(i),
                 n: 0, v: 'x' * 100} in batches of 1,000
  find N         N x {find: "load", filter: {_id: NumberLong(i % docs)}, limit: 1,
                 singleBatch: true}, one connection
  insertmany B   B x insert of 1,000 fresh documents (kind-1 document sequence)
  insert N       N x insert of one fresh document (kind-1 sequence, as insert_one)
  inc N          N x update {q: {_id: NumberLong(i % docs)}, u: {$inc: {n: 1}}}
                 (kind-1 sequence, as update_one)
  setup-ycsb N   into a fresh server: insert N YCSB records into "usertable"
                 ({_id: "user" + fnvhash64(i), field0..field9: 100 printable
                 bytes}, as bench/ycsb/ycsb_mongo_documents.h builds them), in
                 batches of 1,000
  set N          N x YCSB A's update: update usertable {q: {_id: "user..."},
                 u: {$set: {fieldF: <100 new printable bytes>}}} (kind-1
                 sequence, as update_one), nModified 1 checked

Usage: workload.py PORT COMMAND COUNT [--docs D] [--linger S] [--round R]
--round R: another fixed sequence of $set values (a second run of `set`
on the same data would otherwise write equal values: nModified 0).
--linger S: print "done" after the last reply and keep the connection open
S seconds more (bench/callgrind/syscalls reads the connection thread's
context switches then: they go with the thread when it ends).
CALLGRIND_LSID=0 in the environment leaves lsid out, as a client without
sessions (bench/wire_client.h) sends: the server's cost of the session.
Every reply is checked (ok: 1, the document found, insertedCount); a wrong
answer exits 1, so a profile is never taken of a broken server.
"""
import os
import random
import socket
import struct
import sys
import time

DB = "tigerdoc_load"
COLL = "load"
LSID = bytes(range(16))  # a fixed UUID: the same bytes every run
SEND_LSID = os.environ.get("CALLGRIND_LSID", "1") != "0"


def _cstring(s):
    return s.encode() + b"\x00"


def _element(key, value):
    k = _cstring(key)
    if isinstance(value, bool):
        return b"\x08" + k + (b"\x01" if value else b"\x00")
    if isinstance(value, Int64):
        return b"\x12" + k + struct.pack("<q", value.v)
    if isinstance(value, int):
        return b"\x10" + k + struct.pack("<i", value)
    if isinstance(value, float):
        return b"\x01" + k + struct.pack("<d", value)
    if isinstance(value, str):
        data = value.encode()
        return b"\x02" + k + struct.pack("<i", len(data) + 1) + data + b"\x00"
    if isinstance(value, dict):
        return b"\x03" + k + encode(value)
    if isinstance(value, list):
        return b"\x04" + k + encode({str(i): v for i, v in enumerate(value)})
    if isinstance(value, Uuid):
        return b"\x05" + k + struct.pack("<i", 16) + b"\x04" + value.b
    raise TypeError(type(value))


class Int64:
    def __init__(self, v):
        self.v = v


class Uuid:
    def __init__(self, b):
        self.b = b


def encode(doc):
    body = b"".join(_element(k, v) for k, v in doc.items())
    return struct.pack("<i", len(body) + 5) + body + b"\x00"


def decode(data, pos=0):
    """Enough of BSON to check replies: returns (dict, end)."""
    (length,) = struct.unpack_from("<i", data, pos)
    end = pos + length - 1
    pos += 4
    out = {}
    while pos < end:
        t = data[pos]
        pos += 1
        z = data.index(b"\x00", pos)
        key = data[pos:z].decode()
        pos = z + 1
        if t == 0x01:
            out[key] = struct.unpack_from("<d", data, pos)[0]
            pos += 8
        elif t == 0x02:
            (n,) = struct.unpack_from("<i", data, pos)
            out[key] = data[pos + 4:pos + 3 + n].decode()
            pos += 4 + n
        elif t in (0x03, 0x04):
            sub, _ = decode(data, pos)
            out[key] = list(sub.values()) if t == 0x04 else sub
            pos += struct.unpack_from("<i", data, pos)[0]
        elif t == 0x05:
            (n,) = struct.unpack_from("<i", data, pos)
            out[key] = data[pos + 5:pos + 5 + n]
            pos += 5 + n
        elif t == 0x07:
            out[key] = data[pos:pos + 12]
            pos += 12
        elif t == 0x08:
            out[key] = data[pos] == 1
            pos += 1
        elif t in (0x09, 0x11, 0x12):
            out[key] = struct.unpack_from("<q", data, pos)[0]
            pos += 8
        elif t == 0x10:
            out[key] = struct.unpack_from("<i", data, pos)[0]
            pos += 4
        elif t == 0x0A:
            out[key] = None
        else:
            raise ValueError("BSON type %d in a reply" % t)
    return out, end + 1


class Client:
    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.request_id = 0

    def command(self, body, sequence=None):
        """OP_MSG with a kind-0 body and optionally one kind-1 sequence (name, docs)."""
        body = dict(body)
        body["$db"] = DB
        if SEND_LSID:
            body["lsid"] = {"id": Uuid(LSID)}
        sections = b"\x00" + encode(body)
        if sequence is not None:
            name, docs = sequence
            payload = _cstring(name) + b"".join(docs)
            sections += b"\x01" + struct.pack("<i", len(payload) + 4) + payload
        self.request_id += 1
        message = struct.pack("<iiiii", 16 + 4 + len(sections), self.request_id, 0, 2013, 0)
        self.sock.sendall(message + sections)
        header = self._read(16)
        (length,) = struct.unpack_from("<i", header, 0)
        rest = self._read(length - 16)
        reply, _ = decode(rest, 5)  # flagBits (4) and section kind 0 (1)
        if reply.get("ok") != 1.0:
            sys.exit("workload.py: command %s failed: %s" % (next(iter(body)), reply))
        return reply

    def _read(self, n):
        chunks = []
        while n > 0:
            chunk = self.sock.recv(n)
            if not chunk:
                sys.exit("workload.py: the server closed the connection")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)


def document(i):
    return encode({"_id": Int64(i), "n": 0, "v": "x" * 100})


YCSB_COLL = "usertable"
YCSB_FIELDS = 10
YCSB_FIELD_LENGTH = 100


def fnv_hash64(value):
    """YCSB's FNV-1a over the 8 bytes of `value`, made non-negative
    (bench/ycsb/ycsb_workload.cc FnvHash64)."""
    v = value & 0xFFFFFFFFFFFFFFFF
    h = 0xCBF29CE484222325
    for _ in range(8):
        h ^= v & 0xFF
        v >>= 8
        h = (h * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    if h >= 1 << 63:
        h -= 1 << 64
    if h < 0:
        h = (1 << 63) - 1 if h == -(1 << 63) else -h
    return h


def ycsb_key(record):
    return "user%d" % fnv_hash64(record)


def ycsb_value(rng):
    """100 printable bytes '!'..'~', as RandomFieldValue (seeded: every run
    sends the same bytes)."""
    return "".join(chr(33 + rng.randrange(94)) for _ in range(YCSB_FIELD_LENGTH))


def ycsb_record(record, rng):
    doc = {"_id": ycsb_key(record)}
    for f in range(YCSB_FIELDS):
        doc["field%d" % f] = ycsb_value(rng)
    return encode(doc)


def insert_batches(client, first_id, batches, batch=1000):
    for b in range(batches):
        start = first_id + b * batch
        docs = [document(start + j) for j in range(batch)]
        reply = client.command({"insert": COLL, "ordered": True}, ("documents", docs))
        if reply.get("n") != batch:
            sys.exit("workload.py: insert answered %s" % reply)


def main():
    args = sys.argv[1:]
    docs = 10000
    if "--docs" in args:
        i = args.index("--docs")
        docs = int(args[i + 1])
        del args[i:i + 2]
    round_ = 0
    if "--round" in args:
        i = args.index("--round")
        round_ = int(args[i + 1])
        del args[i:i + 2]
    linger = 0.0
    if "--linger" in args:
        i = args.index("--linger")
        linger = float(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    port, what, count = int(args[0]), args[1], int(args[2])
    client = Client(port)
    client.command({"hello": 1})
    if what == "setup":
        insert_batches(client, 0, (count + 999) // 1000)
    elif what == "find":
        for i in range(count):
            key = i * 7919 % docs  # spread over the documents, same order each run
            reply = client.command({"find": COLL, "filter": {"_id": Int64(key)}, "limit": 1,
                                    "singleBatch": True})
            batch = reply["cursor"]["firstBatch"]
            if len(batch) != 1 or batch[0]["_id"] != key:
                sys.exit("workload.py: find of %d answered %s" % (key, reply))
    elif what == "insertmany":
        insert_batches(client, 1 << 40, count)
    elif what == "insert":
        insert_batches(client, 1 << 40, count, batch=1)
    elif what == "inc":
        for i in range(count):
            key = i * 7919 % docs
            update = encode({"q": {"_id": Int64(key)}, "u": {"$inc": {"n": 1}}})
            reply = client.command({"update": COLL, "ordered": True}, ("updates", [update]))
            if reply.get("n") != 1 or reply.get("nModified") != 1:
                sys.exit("workload.py: $inc of %d answered %s" % (key, reply))
    elif what == "setup-ycsb":
        rng = random.Random(1)
        for start in range(0, count, 1000):
            docs = [ycsb_record(r, rng) for r in range(start, min(count, start + 1000))]
            reply = client.command({"insert": YCSB_COLL, "ordered": True}, ("documents", docs))
            if reply.get("n") != len(docs):
                sys.exit("workload.py: insert answered %s" % reply)
    elif what == "set":
        rng = random.Random(2 + 1000 * round_)
        for i in range(count):
            key = ycsb_key(i * 7919 % docs)
            field = "field%d" % (i % YCSB_FIELDS)
            update = encode({"q": {"_id": key}, "u": {"$set": {field: ycsb_value(rng)}}})
            reply = client.command({"update": YCSB_COLL, "ordered": True}, ("updates", [update]))
            if reply.get("n") != 1 or reply.get("nModified") != 1:
                sys.exit("workload.py: $set of %s answered %s" % (key, reply))
    else:
        sys.exit(__doc__)
    if linger > 0:
        print("done", flush=True)
        time.sleep(linger)


if __name__ == "__main__":
    main()
