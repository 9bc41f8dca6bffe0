#pragma once
// The ways tigerdoc_ycsb talks to a MongoDB server (bench/README.md, "How
// the bench calls libmongoc", "A thin wire client beside libmongoc"). All
// send the server the same commands (find with limit/singleBatch, update
// with one statement, insert with one document) and check the same
// answers; they differ in the client's work:
//
//  - kCommand (default): each operation is one mongoc_collection_*_command_with_opts
//    call with a command document the thread keeps and refills: one server
//    selection and one server stream per operation.
//  - kCrud: the CRUD helpers (find_with_opts + a cursor, update_one,
//    insert_one). libmongoc 1.23 selects a server and creates a server
//    stream twice per find (cursor prime, then the command), and every
//    stream re-parses the server's handshake reply.
//  - kWire: no libmongoc at all: bench/wire_client.h, one OP_MSG per
//    operation on a connection of its own (ycsb_mongo_wire.h).
//
// Ownership: a client pops its mongoc_client_t from `pool` and pushes it
// back when destroyed; `pool` must outlive it. One thread per client.

#include <memory>
#include <string>

#include "bench/ycsb/ycsb_backend.h"

struct _mongoc_client_pool_t;

namespace tigerdoc::bench::ycsb {

enum class MongoApi { kCommand, kCrud, kWire };

// "command" / "crud" / "wire"; false for anything else.
bool MongoApiByName(const std::string& name, MongoApi* api);

std::unique_ptr<Client> NewMongoCommandClient(_mongoc_client_pool_t* pool, const char* db,
                                              const char* collection);
std::unique_ptr<Client> NewMongoCrudClient(_mongoc_client_pool_t* pool, const char* db,
                                           const char* collection);

}  // namespace tigerdoc::bench::ycsb
