#pragma once
// The interface tigerdoc_load drives: a backend (the tigerdoc server over
// libmongoc, or WiredTiger in-process as the ceiling) hands out one Worker
// per load thread; a Worker performs the three measured operations on
// documents shaped by MakeLoadDoc().
//
// Thread-safety: a Backend's NewWorker() may be called from several
// threads; each Worker is used by exactly one thread.

#include <bson/bson.h>

#include <cstdint>
#include <memory>
#include <string>

#include "engine/base/status.h"
#include "engine/bson/bson_doc.h"

namespace tigerdoc::bench {

// Bytes of the padding string in every load document.
inline constexpr int kPayloadBytes = 100;

// {_id: NumberLong(id), type: <"order.created" | "order.paid" | "user.login">,
// n: 0, v: "<kPayloadBytes x 'x'>"}: the document both
// backends store, so keys and values have the same sizes on each.
bson::BsonDoc MakeLoadDoc(int64_t id);

class Worker {
 public:
  virtual ~Worker() = default;
  // Each returns false when the operation failed (and counts as an error).
  virtual bool Insert(int64_t id) = 0;         // a new document
  virtual bool ReadById(int64_t id) = 0;       // fetch one document by _id
  virtual bool IncrementById(int64_t id) = 0;  // {$inc: {n: 1}} by _id
  // `count` new documents with _ids first_id.. in one request (insertMany);
  // by default one Insert each.
  virtual bool InsertBatch(int64_t first_id, int count) {
    for (int i = 0; i < count; ++i) {
      if (!Insert(first_id + i)) return false;
    }
    return true;
  }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Empties the target and inserts documents with _id 0..count-1.
  virtual Status Reset(int64_t count) = 0;
  virtual StatusWith<std::unique_ptr<Worker>> NewWorker() = 0;
  // CPU seconds the serving side has used so far (the server process, or
  // this process for an in-process engine); -1 when unknown.
  virtual double ServerCpuSeconds() { return -1; }
};

}  // namespace tigerdoc::bench
