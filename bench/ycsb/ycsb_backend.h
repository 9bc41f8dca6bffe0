#pragma once
// The interface tigerdoc_ycsb drives: a store of YCSB records (a key and
// kFieldCount string fields). A backend hands out one Client per load
// thread; a Client performs YCSB's four operations.
//
// Thread-safety: Backend::NewClient() and ServerCpuSeconds() may be called
// from several threads; each Client is used by exactly one thread.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench/ycsb/ycsb_workload.h"
#include "engine/base/status.h"

namespace tigerdoc::bench::ycsb {

class Client {
 public:
  virtual ~Client() = default;
  // Each returns false when the operation failed or found nothing to act on.
  // `fields` holds kFieldCount values, field0 first.
  virtual bool Insert(const std::string& key, const std::vector<std::string>& fields) = 0;
  // Reads every field of the record.
  virtual bool Read(const std::string& key) = 0;
  // Sets one field of an existing record.
  virtual bool Update(const std::string& key, int field, const std::string& value) = 0;
  // Reads up to `count` records in key order from the first key >= `start`;
  // returns how many it read, or -1 on error.
  virtual int64_t Scan(const std::string& start, int count) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Drops and recreates the (empty) table.
  virtual Status Reset() = 0;
  // After the load phase, before the workloads (PostgreSQL: ANALYZE).
  virtual Status FinishLoad() { return Status::OK(); }
  virtual StatusWith<std::unique_ptr<Client>> NewClient() = 0;
  // CPU seconds the serving side has used so far (its processes, or this
  // process for an in-process engine); -1 when unknown.
  virtual double ServerCpuSeconds() = 0;
};

}  // namespace tigerdoc::bench::ycsb
