#include "bench/blogging_model.h"

#include <cstdio>
#include <random>

namespace tigerdoc::bench::blogging {
namespace {

// A year of posts before 2026-01-01, at random times.
constexpr int64_t kEpochMs = 1767225600000;  // 2026-01-01T00:00:00Z
constexpr int64_t kYearMs = 365LL * 24 * 3600 * 1000;

const std::string& Content() {
  static const std::string text = [] {
    std::string s;
    while (s.size() < 600) s += "A blog post has some paragraphs of text that readers open in full. ";
    return s;
  }();
  return text;
}

// Inserts docs (and destroys them) in one unordered insertMany.
bool InsertBatch(mongoc_collection_t* coll, std::vector<bson_t*>* docs) {
  if (docs->empty()) return true;
  bson_t* opts = BCON_NEW("ordered", BCON_BOOL(false));
  bson_error_t error;
  bool ok = mongoc_collection_insert_many(coll, const_cast<const bson_t**>(docs->data()), docs->size(),
                                          opts, nullptr, &error);
  if (!ok) std::fprintf(stderr, "insertMany into %s: %s\n", mongoc_collection_get_name(coll), error.message);
  bson_destroy(opts);
  for (bson_t* d : *docs) bson_destroy(d);
  docs->clear();
  return ok;
}

// Collects documents for one collection and sends them 1000 at a time.
class Batcher {
 public:
  Batcher(mongoc_client_t* client, const char* coll) : coll_(mongoc_client_get_collection(client, kDb, coll)) {}
  ~Batcher() { mongoc_collection_destroy(coll_); }
  bool Add(bson_t* doc) {
    docs_.push_back(doc);
    return docs_.size() < 1000 || InsertBatch(coll_, &docs_);
  }
  bool Flush() { return InsertBatch(coll_, &docs_); }

 private:
  mongoc_collection_t* coll_;
  std::vector<bson_t*> docs_;
};

}  // namespace

std::string UserId(int user) { return "u" + std::to_string(user); }
std::string Username(int user, int version) {
  return "user" + std::to_string(user) + (version ? "-v" + std::to_string(version) : "");
}
std::string PostId(int64_t post) { return "p" + std::to_string(post); }

BlogDataSet BlogDataSet::Generate(int users, uint32_t seed) {
  BlogDataSet data;
  data.users = users;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> posts_per_user(5, 50), comments(0, 25), likes(0, 100);
  std::uniform_int_distribution<int64_t> when(0, kYearMs - 1);
  for (int u = 0; u < users; ++u) {
    for (int n = posts_per_user(rng); n > 0; --n) {
      PostInfo p{u, comments(rng), likes(rng), kEpochMs - kYearMs + when(rng)};
      data.comments += p.comments;
      data.likes += p.likes;
      data.posts.push_back(p);
    }
  }
  return data;
}

bool RunJson(mongoc_client_t* client, const std::string& json, bson_t* reply) {
  bson_error_t error;
  bson_t* cmd = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                   static_cast<ssize_t>(json.size()), &error);
  if (cmd == nullptr) {
    std::fprintf(stderr, "bad JSON %s: %s\n", json.c_str(), error.message);
    return false;
  }
  bson_t local;
  bool ok = mongoc_client_command_simple(client, kDb, cmd, nullptr, reply ? reply : &local, &error);
  if (!ok) std::fprintf(stderr, "%s: %s\n", json.c_str(), error.message);
  if (!reply) bson_destroy(&local);
  bson_destroy(cmd);
  return ok;
}

bool CreateContainers(mongoc_client_t* client) {
  return RunJson(client, R"({"dropDatabase": 1})") &&
         RunJson(client, R"({"create": "users", "shardKey": {"userId": 1}})") &&
         RunJson(client, R"({"create": "feed", "shardKey": {"type": 1}})") &&
         RunJson(client, R"({"insert": "feed", "documents": [{"_id": "recent", "type": "post"}]})") &&
         RunJson(client, R"({"create": "posts", "shardKey": {"postId": 1},
             "subset": {"parent": "feed", "localField": "feed", "foreignField": "_id", "as": "posts",
                        "sort": {"creationDate": -1}, "limit": )" + std::to_string(kFeedSize) + R"(,
                        "project": {"postId": 1, "userId": 1, "userUsername": 1, "title": 1,
                                    "summary": 1, "commentCount": 1, "likeCount": 1, "creationDate": 1}}})") &&
         // Q3, Q4, Q5 read only what they return, in the order they list it.
         RunJson(client, R"({"createIndexes": "users", "indexes": [{"key": {"userId": 1, "type": 1,
             "creationDate": -1}, "name": "userId_1_type_1_creationDate_-1"}]})") &&
         RunJson(client, R"({"createIndexes": "posts", "indexes": [{"key": {"postId": 1, "type": 1,
             "creationDate": 1}, "name": "postId_1_type_1_creationDate_1"}]})");
}

bson_t* UserDoc(const std::string& user_id, const std::string& username) {
  return BCON_NEW("_id", BCON_UTF8(user_id.c_str()), "type", BCON_UTF8("user"), "userId",
                  BCON_UTF8(user_id.c_str()), "username", BCON_UTF8(username.c_str()));
}

bson_t* PostDoc(const std::string& post_id, const std::string& user_id, const std::string& username,
                int64_t creation_ms, int comments, int likes) {
  const std::string title = "Post " + post_id;
  const std::string content = post_id + ": " + Content();
  const std::string summary = content.substr(0, kSummaryChars);
  return BCON_NEW("_id", BCON_UTF8(post_id.c_str()), "type", BCON_UTF8("post"), "postId",
                  BCON_UTF8(post_id.c_str()), "feed", BCON_UTF8("recent"), "userId",
                  BCON_UTF8(user_id.c_str()), "userUsername", BCON_UTF8(username.c_str()), "title",
                  BCON_UTF8(title.c_str()), "content", BCON_UTF8(content.c_str()), "summary",
                  BCON_UTF8(summary.c_str()), "commentCount", BCON_INT32(comments), "likeCount",
                  BCON_INT32(likes), "creationDate", BCON_DATE_TIME(creation_ms));
}

bson_t* ReactionDoc(const char* type, const std::string& id, const std::string& post_id,
                    const std::string& user_id, const std::string& username, int64_t creation_ms) {
  bson_t* doc = BCON_NEW("_id", BCON_UTF8(id.c_str()), "type", BCON_UTF8(type), "postId",
                         BCON_UTF8(post_id.c_str()), "userId", BCON_UTF8(user_id.c_str()),
                         "userUsername", BCON_UTF8(username.c_str()), "creationDate",
                         BCON_DATE_TIME(creation_ms));
  if (type[0] == 'c') BSON_APPEND_UTF8(doc, "content", "A comment of a sentence or two about the post.");
  return doc;
}

bson_t* ShortForm(const bson_t* post) {
  bson_t* copy = bson_new();
  bson_iter_t it;
  if (!bson_iter_init(&it, post)) return copy;
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    if (key == "content" || key == "feed") continue;
    bson_append_iter(copy, bson_iter_key(&it), -1, &it);
  }
  return copy;
}

bool Load(mongoc_client_t* client, const BlogDataSet& data) {
  Batcher users(client, "users"), posts(client, "posts");
  bool ok = true;
  for (int u = 0; u < data.users && ok; ++u) ok = users.Add(UserDoc(UserId(u), Username(u, 0)));
  int64_t reaction = 0;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> anyone(0, data.users - 1);
  for (size_t i = 0; i < data.posts.size() && ok; ++i) {
    const PostInfo& p = data.posts[i];
    const std::string post_id = PostId(static_cast<int64_t>(i));
    bson_t* post = PostDoc(post_id, UserId(p.user), Username(p.user, 0), p.creation_ms, p.comments, p.likes);
    ok = users.Add(ShortForm(post)) && posts.Add(post);
    for (int c = 0; c < p.comments && ok; ++c) {
      const int who = anyone(rng);
      ok = posts.Add(ReactionDoc("comment", "c" + std::to_string(reaction++), post_id, UserId(who),
                                 Username(who, 0), p.creation_ms + 1000 * (c + 1)));
    }
    for (int l = 0; l < p.likes && ok; ++l) {
      const int who = anyone(rng);
      ok = posts.Add(ReactionDoc("like", "l" + std::to_string(reaction++), post_id, UserId(who),
                                 Username(who, 0), p.creation_ms + 1000 * (l + 1)));
    }
    if (i % 2000 == 1999) std::fprintf(stderr, "  loaded %zu of %zu posts\n", i + 1, data.posts.size());
  }
  return ok && users.Flush() && posts.Flush();
}

}  // namespace tigerdoc::bench::blogging
