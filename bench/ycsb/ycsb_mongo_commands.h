#pragma once
// The commands tigerdoc_ycsb's command-style libmongoc client and its thin
// wire client send, one per YCSB operation, and the checks of their
// replies: in one place so that both put the same commands on the wire and
// judge the answers alike (a read finds its record, an update or insert
// writes one, a scan's cursor is exhausted in its first batch and holds no
// more than it asked for).
//
// Each Build* function fills an empty document (bson_init / bson_reinit)
// without $db; the caller's transport adds what it needs.
//
// Thread-safety: pure functions.

#include <bson/bson.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tigerdoc::bench::ycsb {

// {find: coll, filter: {_id: key}, limit: 1, singleBatch: true}
void BuildReadCommand(bson_t* cmd, const std::string& collection, const std::string& key);
// {update: coll, updates: [{q: {_id: key}, u: {$set: {fieldN: value}}}]}
void BuildUpdateCommand(bson_t* cmd, const std::string& collection, const std::string& key,
                        int field, const std::string& value);
// {insert: coll, documents: [{_id: key, field0..field9}]}
void BuildInsertCommand(bson_t* cmd, const std::string& collection, const std::string& key,
                        const std::vector<std::string>& fields);
// {find: coll, filter: {_id: {$gte: start}}, sort: {_id: 1}, limit: count}
// (count <= kMaxScanLength: the server's first batch of 101 holds them all
// and closes the cursor, as find_with_opts sends a limited find).
void BuildScanCommand(bson_t* cmd, const std::string& collection, const std::string& start,
                      int count);

// Documents in reply.cursor.firstBatch; -1 unless the cursor is exhausted
// (id 0): every find here asks for a single batch. With `first`, it is set
// (bson_init_static, a view into the reply) to the batch's first document
// when there is one.
int64_t FirstBatchCount(const bson_t* reply, bson_t* first = nullptr);
// Documents a find returned (a read's: 1 when it found its record), or -1
// when the reply is not an exhausted cursor of at most `count` documents.
int64_t ScanLength(const bson_t* reply, int count);
// True when a write command's reply has no writeErrors and n == 1 (one
// document inserted, or one matched by an update).
bool WroteOne(const bson_t* reply);

}  // namespace tigerdoc::bench::ycsb
