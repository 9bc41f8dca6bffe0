// The blogging platform of blogging-platform-partitioning.txt in its final
// form (V3), on tigerdoc:
//   users  partitioned on userId: each user and a short copy of each of the
//          user's posts (so a user's posts are one partition, Q3);
//   posts  partitioned on postId: each post with its comments and likes,
//          told apart by `type`; a post carries its author's username and
//          its comment and like counts;
//   feed   partitioned on type: the 100 most recent posts in short form.
// The article's stored procedures become transactions (a comment or a like
// with its post's counter), its change feed becomes change streams (posts
// -> their copies in users; a username edit -> every post, comment and like
// of that user), and its post-trigger that truncates the feed becomes the
// subset pattern (patterns/README.md): the server keeps the feed's document
// holding the 100 newest posts in the transaction of every post write, so
// it is never out of step. Every request C1-C4 and Q1-Q6 is run and each
// read is checked with explain to touch one shard, as V3 promises.
load(__dirname + "/../lib/assert.js");

const name = "shell_blogging";
const tdb = db.getSiblingDB(name);
assert.commandWorked(tdb.dropDatabase());

// The shard tables a find reads and the documents it examines.
function plan(cursor) {
  const e = cursor.explain("executionStats");
  return { shards: e.queryPlanner.winningPlan.shards.length, docs: e.executionStats.totalDocsExamined };
}

// --- The containers ---------------------------------------------------------
const feedSize = 100;
const shortFields = { postId: 1, userId: 1, userUsername: 1, title: 1, summary: 1, commentCount: 1,
                      likeCount: 1, creationDate: 1 };
assert.commandWorked(tdb.createCollection("users", {
  shardKey: { userId: 1 },
  discriminator: { field: "type", types: { user: { username: { $type: "string" } },
                                           post: { postId: { $type: "string" } } } },
}));
assert.commandWorked(tdb.createCollection("feed", { shardKey: { type: 1 } }));
// The feed is one document of the feed container (partition "post"): the
// subset option on posts keeps its `posts` array = the newest 100 documents
// whose `feed` field names it, in short form. (No counter: with one, every
// post write would rewrite the feed's document; without, only writes that
// change the 100 newest do.)
// Comments and likes carry no `feed` field, so they belong to no feed.
assert.commandWorked(tdb.feed.insertOne({ _id: "recent", type: "post" }));
assert.commandWorked(tdb.createCollection("posts", {
  shardKey: { postId: 1 },
  discriminator: { field: "type", types: {
    post: { title: { $type: "string" }, commentCount: { $type: "number" }, likeCount: { $type: "number" } },
    comment: { content: { $type: "string" } },
    like: {},
  } },
  subset: { parent: "feed", localField: "feed", foreignField: "_id", as: "posts",
            sort: { creationDate: -1 }, limit: feedSize, project: shortFields },
}));

// Q3, Q4 and Q5 read only what they return, in the order they list it.
tdb.users.createIndex({ userId: 1, type: 1, creationDate: -1 });
tdb.posts.createIndex({ postId: 1, type: 1, creationDate: 1 });

// --- The change feed: posts -> users' copies, usernames -> everything -------
// maxAwaitTimeMS bounds how long tryNext waits for an event that is not there.
const postChanges = tdb.posts.watch([{ $match: { operationType: { $in: ["insert", "update", "replace"] } } }],
                                    { fullDocument: "updateLookup", maxAwaitTimeMS: 50 });
const userChanges = tdb.users.watch([{ $match: { operationType: "update" } }],
                                    { fullDocument: "updateLookup", maxAwaitTimeMS: 50 });
function shortForm(post) {
  const copy = { _id: post._id, type: "post" };
  for (const f of Object.keys(shortFields)) copy[f] = post[f];
  return copy;
}
function onPostChange(change) {
  const post = change.fullDocument;
  if (!post || post.type !== "post") return;  // comments, likes; a post deleted since
  assert.commandWorked(tdb.users.replaceOne({ userId: post.userId, _id: post._id }, shortForm(post),
                                            { upsert: true }));
}
function onUserChange(change) {
  const user = change.fullDocument;
  const fields = change.updateDescription.updatedFields;
  if (!user || user.type !== "user" || !("username" in fields)) return;
  // The user's own partition of users (the post copies, which the posts
  // watcher would also rewrite), then every partition of posts: the
  // article's costly but rare fan-out.
  assert.commandWorked(tdb.users.updateMany({ userId: user.userId, type: "post" },
                                            { $set: { userUsername: fields.username } }));
  assert.commandWorked(tdb.posts.updateMany({ userId: user.userId },
                                            { $set: { userUsername: fields.username } }));
}
// Applies events until both streams are quiet; returns how many it applied.
// (A stream is drained before the other is asked: asking a quiet stream
// costs its maxAwaitTimeMS.)
function pump() {
  let applied = 0;
  for (;;) {
    let round = 0;
    for (let c = postChanges.tryNext(); c; c = postChanges.tryNext(), round++) onPostChange(c);
    for (let c = userChanges.tryNext(); c; c = userChanges.tryNext(), round++) onUserChange(c);
    if (round === 0) return applied;
    applied += round;
  }
}

// --- The commands -----------------------------------------------------------
const session = db.getMongo().startSession();
const sdb = session.getDatabase(name);
const t0 = new Date("2026-01-01T00:00:00Z").getTime();
let clock = 0;
const nextDate = () => new Date(t0 + 1000 * ++clock);
const usernames = {};

// [C1] create a user, edit a user.
function createUser(userId, username) {
  usernames[userId] = username;
  assert.commandWorked(tdb.users.insertOne({ _id: userId, type: "user", userId, username }));
}
function editUsername(userId, username) {
  usernames[userId] = username;
  const r = tdb.users.updateOne({ userId, _id: userId }, { $set: { username } });
  assert.eq(r.modifiedCount, 1);
}
// [C2] create a post, edit a post.
function createPost(postId, userId, title, content) {
  assert.commandWorked(tdb.posts.insertOne({
    _id: postId, type: "post", postId, feed: "recent", userId, userUsername: usernames[userId], title,
    content, summary: content.substring(0, 20), commentCount: 0, likeCount: 0, creationDate: nextDate(),
  }));
}
function editPost(postId, title, content) {
  const r = tdb.posts.updateOne({ postId, _id: postId },
                                { $set: { title, content, summary: content.substring(0, 20) } });
  assert.eq(r.modifiedCount, 1);
}
// [C3] a comment and [C4] a like, each with its post's counter in one
// transaction (the article's stored procedure).
function addToPost(kind, id, postId, userId, fields) {
  const counter = kind === "comment" ? "commentCount" : "likeCount";
  session.withTransaction(() => {
    sdb.posts.insertOne(Object.assign({ _id: id, type: kind, postId, userId, userUsername: usernames[userId],
                                        creationDate: nextDate() }, fields));
    const r = sdb.posts.updateOne({ postId, _id: postId, type: "post" }, { $inc: { [counter]: 1 } });
    if (r.matchedCount !== 1) throw new Error("no post " + postId);
  });
}
const createComment = (id, postId, userId, content) => addToPost("comment", id, postId, userId, { content });
const likePost = (id, postId, userId) => addToPost("like", id, postId, userId, {});

// --- A small data set: 12 users, 125 posts, comments and likes ------------
const userIds = [];
for (let u = 0; u < 12; u++) {
  userIds.push("u" + u);
  createUser("u" + u, "user" + u);
}
const postIds = [];
for (let i = 0; i < 125; i++) {
  const userId = userIds[(i * 7) % userIds.length];
  postIds.push("p" + i);
  createPost("p" + i, userId, "Post " + i, "The content of post " + i + ", which is longer than a summary.");
}
const expectedComments = {};
const expectedLikes = {};
let n = 0;
for (let i = 0; i < postIds.length; i += 4) {
  const postId = postIds[i];
  expectedComments[postId] = i % 5;
  expectedLikes[postId] = i % 9;
  for (let c = 0; c < i % 5; c++) createComment("c" + n++, postId, userIds[(i + c) % 12], "Comment " + c);
  for (let l = 0; l < i % 9; l++) likePost("l" + n++, postId, userIds[(i + l) % 12]);
}
assert.gte(pump(), 125, "the posts watcher saw every post");

// A failed comment (its id is taken) rolls its counter back with it.
let failed = null;
try {
  createComment("c0", "p4", "u1", "a duplicate");
} catch (e) {
  failed = e;
}
assert.eq(failed && failed.code, 11000, "the duplicate comment: " + failed);
// A comment on a post that does not exist leaves no comment behind.
failed = null;
try {
  createComment("orphan", "nope", "u1", "on no post");
} catch (e) {
  failed = e;
}
assert.eq(failed && failed.message, "no post nope");
assert.eq(tdb.posts.countDocuments({ _id: "orphan" }), 0, "the aborted comment is gone");
pump();

// Every counter equals its children, in posts, in the users' copies, in the
// feed (a few queries over everything, not a few per post).
function checkCounters() {
  const feedPosts = {};
  for (const p of tdb.feed.findOne({ _id: "recent" }).posts) feedPosts[p._id] = p;
  const children = {};
  for (const c of tdb.posts.aggregate([{ $match: { type: { $in: ["comment", "like"] } } },
                                       { $group: { _id: { postId: "$postId", type: "$type" }, n: { $sum: 1 } } }])) {
    children[c._id.postId + "/" + c._id.type] = c.n;
  }
  const copies = {};
  for (const c of tdb.users.find({ type: "post" })) copies[c._id] = c;
  const posts = tdb.posts.find({ type: "post" }).toArray();
  assert.eq(posts.map((p) => p._id).sort(), postIds.slice().sort(), "the posts");
  assert.eq(Object.keys(copies).length, posts.length, "one users' copy per post");
  for (const post of posts) {
    const postId = post._id;
    assert.eq(post.commentCount, children[postId + "/comment"] || 0, postId + " commentCount");
    assert.eq(post.likeCount, children[postId + "/like"] || 0, postId + " likeCount");
    assert.docEq(copies[postId], shortForm(post), postId + " users' copy");
    if (feedPosts[postId]) {
      const expected = shortForm(post);
      delete expected.type;  // the feed shows the projected fields only
      assert.docEq(feedPosts[postId], expected, postId + " in the feed");
    }
  }
}
checkCounters();
assert.eq(tdb.posts.findOne({ _id: "p4" }).commentCount, expectedComments.p4);
assert.eq(tdb.posts.findOne({ _id: "p8" }).likeCount, expectedLikes.p8);

// The feed: the 100 newest posts, newest first.
function checkFeed() {
  const feed = tdb.feed.findOne({ type: "post", _id: "recent" });
  const newest = tdb.posts.find({ type: "post" }, shortFields).sort({ creationDate: -1 }).limit(feedSize).toArray();
  assert.eq(feed.posts.length, feedSize);
  assert.eq(feed.posts.map((p) => p._id), newest.map((p) => p._id));
  return feed;
}
let feed = checkFeed();
assert.eq(feed.posts[0]._id, "p124");
assert.eq(feed.posts[feedSize - 1]._id, "p25");
// A comment on a post in the feed shows in the feed at once (same transaction).
createComment("c-new", "p100", "u3", "late comment");
assert.eq(tdb.feed.findOne({ _id: "recent" }).posts.find((p) => p._id === "p100").commentCount,
          expectedComments.p100 + 1);
// A new post pushes the oldest out; an edited post changes in place.
createPost("p125", "u5", "Post 125", "Newest of all, pushing p25 out of the feed.");
editPost("p60", "Post 60, edited", "Edited content of post sixty.");
pump();
feed = checkFeed();
assert.eq(feed.posts[0]._id, "p125");
assert.eq(feed.posts[feedSize - 1]._id, "p26");
assert.eq(feed.posts.find((p) => p._id === "p60").title, "Post 60, edited");
postIds.push("p125");
checkCounters();

// --- The queries, each from one shard ---------------------------------------
// [Q1] a user.
let q = { userId: "u3", _id: "u3" };
assert.eq(tdb.users.findOne(q).username, "user3");
assert.eq(plan(tdb.users.find(q)), { shards: 1, docs: 1 }, "Q1");
// [Q2] a post, with its author's username and counts (no second query).
q = { postId: "p8", _id: "p8" };
const p8 = tdb.posts.findOne(q);
assert.eq([p8.userUsername, p8.commentCount, p8.likeCount], [usernames[p8.userId], 3, 8]);
assert.eq(plan(tdb.posts.find(q)), { shards: 1, docs: 1 }, "Q2");
// [Q3] a user's posts in short form: from users (V3), one partition.
const u3Posts = tdb.posts.find({ userId: "u3", type: "post" }).toArray().map((p) => p._id);
q = { userId: "u3", type: "post" };
const listed = tdb.users.find(q).sort({ creationDate: -1 }).toArray();
assert.eq(listed.map((p) => p._id).sort(), u3Posts.sort());
assert(listed.every((p) => p.content === undefined && p.summary.length <= 20), "short form");
assert.eq(plan(tdb.users.find(q).sort({ creationDate: -1 })), { shards: 1, docs: listed.length }, "Q3");
// The same question of posts (V1, V2) fans out: the explain check can fail.
assert.gte(plan(tdb.posts.find({ userId: "u3", type: "post" })).shards, 2, "Q3 on posts fans out");
// [Q4] a post's comments and [Q5] its likes, with usernames.
q = { postId: "p8", type: "comment" };
assert.eq(tdb.posts.find(q).sort({ creationDate: 1 }).toArray().map((c) => c.userUsername),
          [8, 9, 10].map((k) => "user" + (k % 12)));
assert.eq(plan(tdb.posts.find(q).sort({ creationDate: 1 })), { shards: 1, docs: 3 }, "Q4");
q = { postId: "p8", type: "like" };
assert.eq(tdb.posts.countDocuments(q), 8);
assert.eq(plan(tdb.posts.find(q).sort({ creationDate: 1 })), { shards: 1, docs: 8 }, "Q5");
// [Q6] the 100 most recent posts: one document of one partition.
q = { type: "post" };
assert.eq(tdb.feed.find(q).toArray()[0].posts.length, feedSize);
assert.eq(plan(tdb.feed.find(q)), { shards: 1, docs: 1 }, "Q6");

// --- The username edit fans out to every copy -------------------------------
const u7Docs = tdb.posts.countDocuments({ userId: "u7" });
assert.gte(u7Docs, 10, "u7 has posts, comments and likes");
const start = Date.now();
editUsername("u7", "seventh");
pump();
const fanOutMs = Date.now() - start;
assert.eq(tdb.posts.countDocuments({ userId: "u7", userUsername: "seventh" }), u7Docs);
assert.eq(tdb.posts.countDocuments({ userUsername: "user7" }), 0);
assert.eq(tdb.users.countDocuments({ userUsername: "user7" }), 0);
assert.eq(tdb.users.countDocuments({ userId: "u7", type: "post", userUsername: "seventh" }),
          tdb.posts.countDocuments({ userId: "u7", type: "post" }));
feed = checkFeed();
assert(feed.posts.some((p) => p.userId === "u7"), "u7 is in the feed");
assert(feed.posts.every((p) => p.userUsername === usernames[p.userId]), "the feed's usernames");
checkCounters();

// The watchers' lag: a post written -> its copy in users.
const lags = [];
for (let i = 0; i < 5; i++) {
  const id = "lag" + i;
  const t = Date.now();
  createPost(id, "u2", "Lag " + i, "Lag post " + i);
  postIds.push(id);
  while (!tdb.users.findOne({ userId: "u2", _id: id })) {
    const change = postChanges.tryNext();
    if (change) onPostChange(change);
    if (Date.now() - t > 10000) throw new Error("no copy of " + id + " within 10 s");
  }
  lags.push(Date.now() - t);
}
pump();
checkCounters();
postChanges.close();
userChanges.close();
session.endSession();
print("blogging: username edit fanned out to " + u7Docs + " posts/comments/likes in " + fanOutMs +
      " ms; post -> users' copy in " + lags.sort((a, b) => a - b).join(", ") + " ms");
