#pragma once
// BlogWatcher: the article's change feed for the blogging model
// (bench/blogging_model.h), one thread and one connection watching the
// database with fullDocument "updateLookup":
//   a post inserted or changed in posts -> its short copy in users
//     (replaceOne {userId, _id} upsert: one partition of users);
//   a username changed in users -> userUsername of the user's post copies
//     (one partition of users) and of every post, comment and like the
//     user wrote (updateMany on posts: every shard, the article's rare
//     fan-out). The feed follows posts by itself (the subset option).
//
// Thread-safety: Start/Stop from one thread; the counters from any.

#include <mongoc/mongoc.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

namespace tigerdoc::bench::blogging {

class BlogWatcher {
 public:
  explicit BlogWatcher(std::string uri) : uri_(std::move(uri)) {}
  ~BlogWatcher() { Stop(); }
  // Returns once the stream is open: every later write is seen.
  bool Start();
  void Stop();
  // Post copies written and username fan-outs finished so far.
  int64_t copies() const { return copies_.load(); }
  int64_t fan_outs() const { return fan_outs_.load(); }
  int64_t errors() const { return errors_.load(); }
  // Events applied (or skipped) so far: unchanged for a while = caught up.
  int64_t events() const { return events_.load(); }

 private:
  void Run();
  void Apply(const bson_t* event);

  std::string uri_;
  mongoc_client_t* client_ = nullptr;
  mongoc_change_stream_t* stream_ = nullptr;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> copies_{0}, fan_outs_{0}, errors_{0}, events_{0};
};

}  // namespace tigerdoc::bench::blogging
