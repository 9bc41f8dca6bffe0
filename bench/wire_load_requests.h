#pragma once
// The requests of tigerdoc_load's reads over the wire and the checks of
// their replies, in one place for every driver that sends them: the
// blocking WireLoadConnection (server_backend.h, LoadClient::kWire) and the
// event-loop crowd (event_crowd.h). The commands are the ones libmongoc
// 1.23 sends for the same helpers (wire_load_connection.cc says why).
//
// Build* reset *cmd and fill it (without $db: EncodeWireRequest or
// WireClient::Run appends it). Check* take a reply whose `ok` is 1 and
// return "" when it is what the request must get, else why not.

#include <bson/bson.h>

#include <cstdint>
#include <string>

namespace tigerdoc::bench {

// {find: coll, filter: {_id: id}, limit: 1, singleBatch: true}
void BuildReadById(bson_t* cmd, const std::string& coll, int64_t id);
// Exactly one document, whose _id is the int64 `id`.
std::string CheckReadByIdReply(const bson_t* reply, int64_t id);

// {find: coll, filter: {v: kNoSuchValue}}: examines every document, returns none.
void BuildFindNone(bson_t* cmd, const std::string& coll);
// An empty first batch.
std::string CheckFindNoneReply(const bson_t* reply);

}  // namespace tigerdoc::bench
