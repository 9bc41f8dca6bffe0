#pragma once
// EventCrowd: many busy connections driven by few threads, as load
// generators such as wrk and memtier drive theirs (issue #18, connection
// fairness). Each connection runs a closed loop (send a request, wait for
// its reply, send the next) on a non-blocking socket; one thread serves
// its share of the connections with epoll.
//
// Why: a crowd of 200 client *threads* on the server's own cores puts a
// probe's client thread in the kernel's run queue behind up to 200
// runnable crowd threads, and that wait is then counted as the server's
// latency. A real crowd sits on other machines; one or two threads for the
// whole crowd leave the run queue to the server (and the probes).
//
// Requests and replies use the thin wire client's framing
// (EncodeWireRequest, WireReplyLength, ParseWireReply, WireReplyStatus in
// wire_client.h) and tigerdoc_load's requests and reply checks
// (wire_load_requests.h): every reply is checked as strictly as the
// blocking client checks it. A connection that fails a request is counted
// as an error and dropped.
//
// Thread-safety: Run(shard) for different shards may run at once, one
// thread each; nothing else may run meanwhile.

#include <bson/bson.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/base/status.h"

namespace tigerdoc::bench {

class EventCrowd {
 public:
  using Clock = std::chrono::steady_clock;

  struct Options {
    std::string uri;  // the server (its first host)
    std::string db, coll;
    int connections = 200;
    int shards = 1;       // threads that will call Run, each with its own share
    bool scans = false;   // FindNone instead of reads by _id
    int64_t docs = 1000;  // reads pick _id uniformly in [0, docs)
  };

  // Opens and handshakes every connection (blocking), then makes their
  // sockets non-blocking.
  static StatusWith<std::unique_ptr<EventCrowd>> Connect(const Options& options);
  ~EventCrowd();
  EventCrowd(const EventCrowd&) = delete;
  EventCrowd& operator=(const EventCrowd&) = delete;

  // Shard `shard`'s connections (every shards-th) work from `start` until
  // `deadline`; requests in flight at the deadline are finished and
  // checked. Appends each request's latency in ns to *latencies_ns and
  // adds failed requests to *errors.
  void Run(int shard, Clock::time_point start, Clock::time_point deadline,
           std::vector<uint32_t>* latencies_ns, int64_t* errors);

 private:
  struct Conn;
  explicit EventCrowd(const Options& options);

  Options options_;
  std::vector<std::unique_ptr<Conn>> conns_;
};

}  // namespace tigerdoc::bench
