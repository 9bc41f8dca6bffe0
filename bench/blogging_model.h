#pragma once
// The blogging platform of blogging-platform-partitioning.txt, model V3, as
// tigerdoc containers (shell_tests/replset/blogging.js is the same model
// with its assertions):
//   users  shardKey {userId}: {_id: userId, type: "user", userId, username}
//          and a short copy of each post of the user (kept by BlogWatcher);
//   posts  shardKey {postId}: posts {_id: postId, type: "post", postId, feed,
//          userId, userUsername, title, content, summary, commentCount,
//          likeCount, creationDate}, comments and likes {_id, type, postId,
//          userId, userUsername, [content], creationDate};
//   feed   shardKey {type}: one document {_id: "recent", type: "post",
//          posts: [the 100 newest posts, short form]}, kept by the subset
//          option of posts in the transaction of each post write that
//          changes the 100 newest (no counter: one would make every post
//          write rewrite the feed).
// Indexes: users {userId, type, creationDate: -1} (Q3), posts {postId,
// type, creationDate} (Q4, Q5), so each reads only what it returns.
// The data set follows the article's: 5 to 50 posts per user, up to 25
// comments and 100 likes per post (uniform), scaled by the number of users.
//
// Thread-safety: BlogDataSet is immutable after Generate; the functions
// take the client they use (one per thread).

#include <mongoc/mongoc.h>

#include <cstdint>
#include <string>
#include <vector>

namespace tigerdoc::bench::blogging {

constexpr char kDb[] = "tigerdoc_blogging_bench";
constexpr int kFeedSize = 100;
constexpr int kSummaryChars = 100;

struct PostInfo {
  int user = 0;
  int comments = 0;
  int likes = 0;
  int64_t creation_ms = 0;
};

struct BlogDataSet {
  int users = 0;
  std::vector<PostInfo> posts;  // post i is "p<i>"
  int64_t comments = 0, likes = 0;
  static BlogDataSet Generate(int users, uint32_t seed);
};

std::string UserId(int user);
std::string Username(int user, int version);
std::string PostId(int64_t post);

// Drops the database and creates the three containers (with the feed
// document). Returns false after printing the failed command.
bool CreateContainers(mongoc_client_t* client);
// Inserts every user, post (with its counts), post copy, comment and like,
// in batches; prints progress to stderr. Returns false on any write error.
bool Load(mongoc_client_t* client, const BlogDataSet& data);

// Documents as the commands write them (the caller destroys them).
bson_t* UserDoc(const std::string& user_id, const std::string& username);
bson_t* PostDoc(const std::string& post_id, const std::string& user_id, const std::string& username,
                int64_t creation_ms, int comments, int likes);
// type is "comment" or "like" (a like has no content).
bson_t* ReactionDoc(const char* type, const std::string& id, const std::string& post_id,
                    const std::string& user_id, const std::string& username, int64_t creation_ms);
// The users container's copy of a post: its short form (no content).
bson_t* ShortForm(const bson_t* post);

// Runs a command given as JSON on kDb; prints and returns false on error.
bool RunJson(mongoc_client_t* client, const std::string& json, bson_t* reply = nullptr);

}  // namespace tigerdoc::bench::blogging
