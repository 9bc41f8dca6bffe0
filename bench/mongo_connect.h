#pragma once
// ConnectMongo: a libmongoc client for a benchmark, checked with a ping so
// a missing server fails before any measurement starts.
//
// Ownership: the caller destroys the client (mongoc_client_destroy).
// Thread-safety: callable from any thread; mongoc_init runs once.

#include <mongoc/mongoc.h>

#include <string>

#include "engine/base/status.h"

namespace tigerdoc::bench {

StatusWith<mongoc_client_t*> ConnectMongo(const std::string& uri);

}  // namespace tigerdoc::bench
