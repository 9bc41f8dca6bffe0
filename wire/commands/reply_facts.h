#pragma once
// ReplyFacts: what the server reads back from a command's reply after the
// command ran: ok, code, n and nModified (serverStatus's counters and
// top), the length of cursor.firstBatch / cursor.nextBatch
// (metrics.document.returned) and cursor.id (an open cursor the
// connection must release when the client left).
//
// Why one walk: those were five bson_iter_find_descendant calls per find,
// about 550 instructions each (issue #18, bench/README.md "CPU per find,
// round 4"). The walk reads the top level and `cursor` through
// bson::RawFields (about 20 instructions an element); if RawFields cannot
// vouch for an element it reads the whole reply again through libbson, so
// the answer is libbson's for every reply. Keys compare exactly; fields of
// the same names nested elsewhere (in a batch's documents, in writeErrors)
// do not count.
//
// Thread-safety: a pure function.

#include <bson/bson.h>

#include <cstdint>

namespace tigerdoc::wire {

struct ReplyFacts {
  int64_t ok = 0, code = 0, n = 0, n_modified = 0;  // 0 when absent or not a number
  int64_t batch = 0;      // documents in cursor.firstBatch or cursor.nextBatch
  int64_t cursor_id = 0;  // cursor.id when an int64; 0: no cursor handed over
};

ReplyFacts ReadReplyFacts(const bson_t* reply);

}  // namespace tigerdoc::wire
