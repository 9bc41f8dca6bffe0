// tigerdoc_blogging_bench: the ten requests of blogging-platform-partitioning.txt
// (C1-C4, Q1-Q6) against its final model V3 (bench/blogging_model.h) on a
// server started with --replSet, beside the article's V3 numbers (latency
// and request units on Azure Cosmos DB). For each request: p50/p99 latency
// over --reps runs with random users and posts, and from explain
// ("executionStats") the documents examined and the shards read (mean and
// maximum over 20 random parameters). Writes report the explain of the
// filter their update uses (inserts name their partition: 1 shard, none
// examined). The change-stream watcher (bench/blogging_watcher.h) runs all
// along, as the article's change feed does, and the username edit is timed
// until every copy of the name has changed; the run fails if a copy is
// left out of step.
//
//   tigerdoc_blogging_bench [--uri URI] [--users N] [--reps N] [--seed S]

#include <mongoc/mongoc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench/blogging_model.h"
#include "bench/blogging_watcher.h"
#include "bench/latency_summary.h"
#include "bench/mongo_connect.h"

namespace tigerdoc::bench::blogging {
namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string uri = "mongodb://127.0.0.1:27017/?directConnection=true";
  int users = 200;
  int reps = 300;
  uint32_t seed = 1;
};

// One find as explain sees it: collection, filter, sort (may be empty).
struct Find {
  const char* coll;
  bson_t* filter;  // owned
  bson_t* sort;    // owned, may be null
};

struct Request {
  const char* id;
  const char* what;
  double article_ms, article_ru;  // the article's V3 column
  std::function<bool()> run;       // one request; false on error
  std::function<Find()> sample;    // a find to explain (null: an insert)
};

struct Row {
  LatencySummary latency;
  double docs_examined = 0;
  int shards = 0;
};

class Bench {
 public:
  Bench(const Options& options, const BlogDataSet& data, mongoc_client_t* client)
      : options_(options), data_(data), client_(client), rng_(options.seed),
        users_(mongoc_client_get_collection(client, kDb, "users")),
        posts_(mongoc_client_get_collection(client, kDb, "posts")),
        feed_(mongoc_client_get_collection(client, kDb, "feed")),
        session_(mongoc_client_start_session(client, nullptr, nullptr)) {}
  ~Bench() {
    mongoc_client_session_destroy(session_);
    mongoc_collection_destroy(users_);
    mongoc_collection_destroy(posts_);
    mongoc_collection_destroy(feed_);
  }

  std::vector<Request> Requests();
  Row Measure(const Request& r);
  // Edits `user`'s username and waits for the watcher's fan-out; returns ms
  // or -1 when a copy is left with the old name.
  double EditUsername(BlogWatcher* watcher, int user, int version);
  int64_t Count(mongoc_collection_t* coll, bson_t* filter);  // destroys filter

  mongoc_collection_t* users() { return users_; }
  mongoc_collection_t* posts() { return posts_; }

 private:
  int RandomUser() { return std::uniform_int_distribution<int>(0, data_.users - 1)(rng_); }
  std::string RandomPost() {
    return PostId(std::uniform_int_distribution<int64_t>(0, static_cast<int64_t>(data_.posts.size()) - 1)(rng_));
  }
  // Reads every document of the find; returns how many (-1 on error).
  int64_t ReadAll(mongoc_collection_t* coll, Find find, int64_t limit = 0);
  // A comment or like on `post_id` (a random post when empty).
  bool React(const char* type, std::string post_id = "");
  bool InsertOne(mongoc_collection_t* coll, bson_t* doc);  // destroys doc
  int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch()).count();
  }

  const Options& options_;
  const BlogDataSet& data_;
  mongoc_client_t* client_;
  std::mt19937_64 rng_;
  mongoc_collection_t *users_, *posts_, *feed_;
  mongoc_client_session_t* session_;
  int64_t next_id_ = 0;
  std::vector<std::string> created_posts_;  // by C2, newest last: the feed
};

int64_t Bench::ReadAll(mongoc_collection_t* coll, Find find, int64_t limit) {
  bson_t opts = BSON_INITIALIZER;
  if (find.sort) BSON_APPEND_DOCUMENT(&opts, "sort", find.sort);
  if (limit) BSON_APPEND_INT64(&opts, "limit", limit);
  mongoc_cursor_t* cursor = mongoc_collection_find_with_opts(coll, find.filter, &opts, nullptr);
  const bson_t* doc;
  int64_t n = 0;
  while (mongoc_cursor_next(cursor, &doc)) ++n;
  bson_error_t error;
  if (mongoc_cursor_error(cursor, &error)) {
    std::fprintf(stderr, "find: %s\n", error.message);
    n = -1;
  }
  mongoc_cursor_destroy(cursor);
  bson_destroy(&opts);
  bson_destroy(find.filter);
  if (find.sort) bson_destroy(find.sort);
  return n;
}

bool Bench::InsertOne(mongoc_collection_t* coll, bson_t* doc) {
  bson_error_t error;
  bool ok = mongoc_collection_insert_one(coll, doc, nullptr, nullptr, &error);
  if (!ok) std::fprintf(stderr, "insert: %s\n", error.message);
  bson_destroy(doc);
  return ok;
}

int64_t Bench::Count(mongoc_collection_t* coll, bson_t* filter) {
  bson_error_t error;
  int64_t n = mongoc_collection_count_documents(coll, filter, nullptr, nullptr, nullptr, &error);
  if (n < 0) std::fprintf(stderr, "count: %s\n", error.message);
  bson_destroy(filter);
  return n;
}

// The article's stored procedure: the comment (or like) and its post's
// counter in one transaction, retried by the driver on TransientTransactionError.
struct ReactionTxn {
  mongoc_collection_t* posts;
  const bson_t* doc;
  const bson_t* post_filter;
  const bson_t* inc;
};

bool ReactionCallback(mongoc_client_session_t* session, void* ctx, bson_t** reply, bson_error_t* error) {
  (void)reply;
  auto* t = static_cast<ReactionTxn*>(ctx);
  bson_t opts = BSON_INITIALIZER;
  bool ok = mongoc_client_session_append(session, &opts, error) &&
            mongoc_collection_insert_one(t->posts, t->doc, &opts, nullptr, error);
  bson_t update_reply;
  if (ok) {
    ok = mongoc_collection_update_one(t->posts, t->post_filter, t->inc, &opts, &update_reply, error);
    bson_iter_t it;
    if (ok && (!bson_iter_init_find(&it, &update_reply, "matchedCount") || bson_iter_as_int64(&it) != 1)) {
      bson_set_error(error, MONGOC_ERROR_COMMAND, 47, "no such post");
      ok = false;
    }
    bson_destroy(&update_reply);
  }
  bson_destroy(&opts);
  return ok;
}

bool Bench::React(const char* type, std::string post_id) {
  if (post_id.empty()) post_id = RandomPost();
  const int who = RandomUser();
  const std::string id = std::string(type[0] == 'c' ? "bc" : "bl") + std::to_string(next_id_++);
  bson_t* doc = ReactionDoc(type, id, post_id, UserId(who), Username(who, 0), NowMs());
  bson_t* filter = BCON_NEW("postId", BCON_UTF8(post_id.c_str()), "_id", BCON_UTF8(post_id.c_str()));
  bson_t* inc = BCON_NEW("$inc", "{", type[0] == 'c' ? "commentCount" : "likeCount", BCON_INT32(1), "}");
  ReactionTxn txn{posts_, doc, filter, inc};
  bson_error_t error;
  bool ok = mongoc_client_session_with_transaction(session_, ReactionCallback, nullptr, &txn, nullptr, &error);
  if (!ok) std::fprintf(stderr, "%s transaction: %s\n", type, error.message);
  bson_destroy(doc);
  bson_destroy(filter);
  bson_destroy(inc);
  return ok;
}

std::vector<Request> Bench::Requests() {
  auto by_post = [this](const char* type) {
    return [this, type]() {
      const std::string p = RandomPost();
      return Find{"posts", BCON_NEW("postId", BCON_UTF8(p.c_str()), "type", BCON_UTF8(type)),
                  BCON_NEW("creationDate", BCON_INT32(1))};
    };
  };
  auto user_point = [this]() {
    const std::string u = UserId(RandomUser());
    return Find{"users", BCON_NEW("userId", BCON_UTF8(u.c_str()), "_id", BCON_UTF8(u.c_str())), nullptr};
  };
  auto post_point = [this]() {
    const std::string p = RandomPost();
    return Find{"posts", BCON_NEW("postId", BCON_UTF8(p.c_str()), "_id", BCON_UTF8(p.c_str())), nullptr};
  };
  auto user_posts = [this]() {
    const std::string u = UserId(RandomUser());
    return Find{"users", BCON_NEW("userId", BCON_UTF8(u.c_str()), "type", BCON_UTF8("post")),
                BCON_NEW("creationDate", BCON_INT32(-1))};
  };
  auto feed = []() { return Find{"feed", BCON_NEW("type", BCON_UTF8("post")), nullptr}; };
  return {
      {"C1", "create a user", 7, 5.71,
       [this] {
         const std::string u = "bu" + std::to_string(next_id_++);
         return InsertOne(users_, UserDoc(u, u));
       },
       nullptr},
      {"Q1", "retrieve a user", 2, 1, [this, user_point] { return ReadAll(users_, user_point(), 1) == 1; },
       user_point},
      {"C2", "create a post", 9, 8.76,
       [this] {
         const int who = RandomUser();
         created_posts_.push_back("bp" + std::to_string(next_id_++));
         return InsertOne(posts_, PostDoc(created_posts_.back(), UserId(who), Username(who, 0), NowMs(), 0, 0));
       },
       nullptr},
      {"Q2", "retrieve a post", 2, 1, [this, post_point] { return ReadAll(posts_, post_point(), 1) == 1; },
       post_point},
      {"Q3", "a user's posts, short form", 4, 6.46,
       [this, user_posts] { return ReadAll(users_, user_posts()) >= 5; }, user_posts},
      {"C3", "create a comment (+count)", 7, 15.27, [this] { return React("comment"); }, post_point},
      // Not in the article: a comment on one of the 100 newest posts (made by
      // C2) also rebuilds the feed's document (the subset pattern rereads
      // its best 100 when a member changes).
      {"C3f", "comment on a post in the feed", 7, 15.27,
       [this] {
         const size_t n = created_posts_.size(), newest = std::min<size_t>(n, kFeedSize);
         return React("comment", created_posts_[n - 1 - std::uniform_int_distribution<size_t>(0, newest - 1)(rng_)]);
       },
       post_point},
      {"Q4", "a post's comments", 4, 7.72,
       [this, by_post] { return ReadAll(posts_, by_post("comment")()) >= 0; }, by_post("comment")},
      {"C4", "like a post (+count)", 7, 14.67, [this] { return React("like"); }, post_point},
      {"Q5", "a post's likes", 4, 8.92, [this, by_post] { return ReadAll(posts_, by_post("like")()) >= 0; },
       by_post("like")},
      {"Q6", "the 100 most recent posts", 9, 16.97, [this, feed] { return ReadAll(feed_, feed()) == 1; },
       feed},
  };
}

Row Bench::Measure(const Request& r) {
  Row row;
  std::vector<uint32_t> latencies;
  const auto begin = Clock::now();
  for (int i = 0; i < options_.reps; ++i) {
    const auto start = Clock::now();
    if (!r.run()) {
      std::fprintf(stderr, "%s failed\n", r.id);
      std::exit(1);
    }
    latencies.push_back(static_cast<uint32_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count()));
  }
  row.latency = Summarize(latencies, std::chrono::duration<double>(Clock::now() - begin).count());
  if (!r.sample) {
    row.shards = 1;  // an insert goes to the partition of its shard key
    return row;
  }
  constexpr int kSamples = 20;
  int64_t examined = 0;
  for (int s = 0; s < kSamples; ++s) {
    Find f = r.sample();
    bson_t* find = BCON_NEW("find", BCON_UTF8(f.coll), "filter", BCON_DOCUMENT(f.filter));
    if (f.sort) BSON_APPEND_DOCUMENT(find, "sort", f.sort);
    bson_t* cmd = BCON_NEW("explain", BCON_DOCUMENT(find), "verbosity", BCON_UTF8("executionStats"));
    bson_t reply;
    bson_error_t error;
    if (!mongoc_client_command_simple(client_, kDb, cmd, nullptr, &reply, &error)) {
      std::fprintf(stderr, "explain: %s\n", error.message);
      std::exit(1);
    }
    bson_iter_t it, shards;
    if (bson_iter_init(&it, &reply) && bson_iter_find_descendant(&it, "executionStats.totalDocsExamined", &it)) {
      examined += bson_iter_as_int64(&it);
    }
    if (bson_iter_init(&it, &reply) && bson_iter_find_descendant(&it, "queryPlanner.winningPlan.shards", &it) &&
        bson_iter_recurse(&it, &shards)) {
      int n = 0;
      while (bson_iter_next(&shards)) ++n;
      row.shards = std::max(row.shards, n);
    }
    bson_destroy(&reply);
    bson_destroy(cmd);
    bson_destroy(find);
    bson_destroy(f.filter);
    if (f.sort) bson_destroy(f.sort);
  }
  row.docs_examined = static_cast<double>(examined) / kSamples;
  return row;
}

double Bench::EditUsername(BlogWatcher* watcher, int user, int version) {
  const std::string user_id = UserId(user);
  const std::string username = Username(user, version);
  const int64_t done_before = watcher->fan_outs();
  const auto start = Clock::now();
  bson_t* filter = BCON_NEW("userId", BCON_UTF8(user_id.c_str()), "_id", BCON_UTF8(user_id.c_str()));
  bson_t* set = BCON_NEW("$set", "{", "username", BCON_UTF8(username.c_str()), "}");
  bson_error_t error;
  bool ok = mongoc_collection_update_one(users_, filter, set, nullptr, nullptr, &error);
  bson_destroy(filter);
  bson_destroy(set);
  if (!ok) {
    std::fprintf(stderr, "username edit: %s\n", error.message);
    return -1;
  }
  while (watcher->fan_outs() == done_before) {
    if (Clock::now() - start > std::chrono::seconds(60) || watcher->errors()) return -1;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  // Every post, comment and like of the user, and every copy, has the name.
  const int64_t stale =
      Count(posts_, BCON_NEW("userId", BCON_UTF8(user_id.c_str()), "userUsername", "{", "$ne",
                             BCON_UTF8(username.c_str()), "}")) +
      Count(users_, BCON_NEW("userId", BCON_UTF8(user_id.c_str()), "type", BCON_UTF8("post"), "userUsername",
                             "{", "$ne", BCON_UTF8(username.c_str()), "}")) +
      Count(feed_, BCON_NEW("posts", "{", "$elemMatch", "{", "userId", BCON_UTF8(user_id.c_str()),
                            "userUsername", "{", "$ne", BCON_UTF8(username.c_str()), "}", "}", "}"));
  return stale == 0 ? ms : -1;
}

int Main(int argc, char** argv) {
  Options options;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--uri")) options.uri = argv[i + 1];
    else if (!std::strcmp(argv[i], "--users")) options.users = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) options.reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed")) options.seed = static_cast<uint32_t>(std::atoi(argv[i + 1]));
    else {
      std::fprintf(stderr, "usage: %s [--uri URI] [--users N] [--reps N] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  auto client = ConnectMongo(options.uri);
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", client.status().ToString().c_str());
    return 1;
  }
  const BlogDataSet data = BlogDataSet::Generate(options.users, options.seed);
  std::printf("data set: %d users, %zu posts, %lld comments, %lld likes (seed %u)\n", data.users,
              data.posts.size(), static_cast<long long>(data.comments), static_cast<long long>(data.likes),
              options.seed);
  const auto load_start = Clock::now();
  if (!CreateContainers(client.value()) || !Load(client.value(), data)) return 1;
  std::printf("loaded in %.1f s\n", std::chrono::duration<double>(Clock::now() - load_start).count());
  BlogWatcher watcher(options.uri);
  if (!watcher.Start()) return 1;
  int status = 0;
  {
    Bench bench(options, data, client.value());
    std::printf("\n%-4s %-28s %9s %9s %10s %7s   %12s %9s\n", "req", "what", "p50 ms", "p99 ms",
                "docs exam.", "shards", "article ms", "article RU");
    for (const Request& r : bench.Requests()) {
      Row row = bench.Measure(r);
      std::printf("%-4s %-28s %9.2f %9.2f %10.1f %7d   %12.0f %9.2f\n", r.id, r.what, row.latency.p50_us / 1000,
                  row.latency.p99_us / 1000, row.docs_examined, row.shards, r.article_ms, r.article_ru);
      std::fflush(stdout);
    }
    // The watcher works behind the requests (each post write is a copy to
    // make): how long after the last request it has applied everything.
    const auto requests_end = Clock::now();
    for (int64_t seen = -1; seen != watcher.events();) {
      seen = watcher.events();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    std::printf("\nwatcher caught up %.0f ms after the last request (200 ms without events; %lld events)\n",
                std::chrono::duration<double, std::milli>(Clock::now() - requests_end).count() - 200,
                static_cast<long long>(watcher.events()));
    // The username edit, for the users with the most posts (the article
    // calls it costly and rare; it does not measure it).
    std::vector<int> by_posts(data.users, 0);
    for (const PostInfo& p : data.posts) ++by_posts[p.user];
    int busiest = 0;
    for (int u = 1; u < data.users; ++u) if (by_posts[u] > by_posts[busiest]) busiest = u;
    std::vector<double> edits;
    for (int v = 1; v <= 3; ++v) {
      const double ms = bench.EditUsername(&watcher, busiest, v);
      if (ms < 0) {
        std::fprintf(stderr, "username edit %d: a copy kept the old name\n", v);
        status = 1;
        break;
      }
      edits.push_back(ms);
    }
    const int64_t written = bench.Count(bench.posts(), BCON_NEW("userId", BCON_UTF8(UserId(busiest).c_str())));
    std::printf("username edit of %s (%d posts, %lld posts+comments+likes written by them), every copy "
                "changed in:", UserId(busiest).c_str(), by_posts[busiest], static_cast<long long>(written));
    for (double ms : edits) std::printf(" %.1f ms", ms);
    std::printf("\n");
    // The watcher's copies catch up with every post written.
    const auto wait_start = Clock::now();
    int64_t copies = -1, posts = 0;
    while (Clock::now() - wait_start < std::chrono::seconds(30)) {
      posts = bench.Count(bench.posts(), BCON_NEW("type", BCON_UTF8("post")));
      copies = bench.Count(bench.users(), BCON_NEW("type", BCON_UTF8("post")));
      if (copies == posts) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::printf("users' post copies: %lld of %lld posts (watcher wrote %lld copies, %lld errors)\n",
                static_cast<long long>(copies), static_cast<long long>(posts),
                static_cast<long long>(watcher.copies()), static_cast<long long>(watcher.errors()));
    if (copies != posts || watcher.errors()) status = 1;
  }
  watcher.Stop();
  return status;
}

}  // namespace
}  // namespace tigerdoc::bench::blogging

int main(int argc, char** argv) { return tigerdoc::bench::blogging::Main(argc, argv); }
