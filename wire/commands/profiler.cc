#include "wire/commands/profiler.h"

#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>

#include "engine/explain_plan.h"
#include "engine/log/log.h"
#include "engine/query/matcher/matcher.h"
#include "wire/commands/command_args.h"

namespace tigerdoc::wire {
namespace {

constexpr char kProfileCollection[] = "system.profile";
// As the slow-query log line, big commands are shown truncated.
constexpr uint32_t kMaxProfiledCommandBytes = 10 * 1024;

struct DatabaseSettings {
  int level = 0;
  std::shared_ptr<const bson::BsonDoc> filter_doc;  // null: no filter
  std::shared_ptr<const query::Matcher> filter;
};

struct ProfilerSettings {
  std::mutex mutex;
  int default_level = 0;
  double sample_rate = 1.0;
  std::map<std::string, DatabaseSettings> databases;
};

// Some database (or the default) has a level above 0; read without the lock
// by every request.
std::atomic<bool> g_any_profiling{false};

void UpdateAnyProfiling(const ProfilerSettings& s) {
  bool any = s.default_level > 0;
  for (const auto& entry : s.databases) any = any || entry.second.level > 0;
  g_any_profiling.store(any);
}

ProfilerSettings& Settings() {
  static ProfilerSettings* settings = new ProfilerSettings();
  return *settings;
}

DatabaseSettings SettingsOf(ProfilerSettings& s, const std::string& db) {
  auto it = s.databases.find(db);
  if (it != s.databases.end()) return it->second;
  DatabaseSettings d;
  d.level = s.default_level;
  return d;
}

// The entries written per database since start (or found at the first write
// after start), oldest first, to keep system.profile under its bound.
struct ProfileBound {
  bool loaded = false;
  std::deque<std::pair<bson_oid_t, int64_t>> entries;  // _id, size
  int64_t bytes = 0;
};

std::mutex g_bound_mutex;
std::map<std::string, ProfileBound>& Bounds() {
  static auto* bounds = new std::map<std::string, ProfileBound>();
  return *bounds;
}

// Reads the entries an earlier run left, oldest first (they are at most a
// megabyte: one batch).
void LoadExisting(engine::Engine& engine, const std::string& db, ProfileBound* bound) {
  engine::FindParams params;
  params.db = db;
  params.coll = kProfileCollection;
  // ObjectIds made by this process increase: _id order is write order.
  BSON_APPEND_INT32(params.sort.mutable_get(), "_id", 1);
  params.batch_size = INT32_MAX;
  params.single_batch = true;
  StatusWith<engine::CursorBatch> found = engine.Find(params);
  if (!found.ok()) return;
  for (const bson::BsonDoc& doc : found.value().docs) {
    bson_iter_t id;
    if (!bson_iter_init_find(&id, doc.get(), "_id") || !BSON_ITER_HOLDS_OID(&id)) continue;
    bound->entries.emplace_back(*bson_iter_oid(&id), static_cast<int64_t>(doc.size()));
    bound->bytes += static_cast<int64_t>(doc.size());
  }
}

void WriteBounded(engine::Engine& engine, const std::string& db, bson::BsonDoc entry, const bson_oid_t& id) {
  std::lock_guard<std::mutex> lock(g_bound_mutex);
  ProfileBound& bound = Bounds()[db];
  if (!bound.loaded) {
    LoadExisting(engine, db, &bound);
    bound.loaded = true;
  }
  const int64_t size = static_cast<int64_t>(entry.size());
  std::vector<bson::BsonDoc> docs;
  docs.push_back(std::move(entry));
  StatusWith<std::vector<Status>> inserted = engine.InsertMany(db, kProfileCollection, std::move(docs), true);
  if (!inserted.ok() || inserted.value().empty() || !inserted.value()[0].ok()) return;
  bound.entries.emplace_back(id, size);
  bound.bytes += size;
  while (bound.bytes > kProfileCollectionBytes && bound.entries.size() > 1) {
    engine::DeleteStatement oldest;
    BSON_APPEND_OID(oldest.query.mutable_get(), "_id", &bound.entries.front().first);
    oldest.limit = 1;
    (void)engine.Delete(db, kProfileCollection, oldest);
    bound.bytes -= bound.entries.front().second;
    bound.entries.pop_front();
  }
}

bool Sampled(double rate) {
  if (rate >= 1.0) return true;
  static thread_local std::mt19937_64 rng(std::random_device{}());
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng) < rate;
}

std::string CollectionOf(const std::string& ns) {
  const size_t dot = ns.find('.');
  return dot == std::string::npos ? "" : ns.substr(dot + 1);
}

// The remote address without its port, as mongod's `client`.
std::string HostOf(const std::string& remote) {
  if (!remote.empty() && remote[0] == '[') return remote.substr(1, remote.find(']') - 1);
  return remote.substr(0, remote.rfind(':'));
}

// Counts are ints when they fit, longs otherwise, as mongod's
// appendNumber (engine/explain_plan.h).
bool ReplyInt(const bson::BsonDoc& reply, const char* path, int64_t* out) {
  bson_iter_t it;
  if (!bson_iter_init(&it, reply.get()) || !bson_iter_find_descendant(&it, path, &it) ||
      !BSON_ITER_HOLDS_NUMBER(&it)) {
    return false;
  }
  *out = bson_iter_as_int64(&it);
  return true;
}

void CopyReplyField(const bson::BsonDoc& reply, const char* from, const char* to, bson_t* out) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, reply.get(), from)) bson_append_iter(out, to, -1, &it);
}

bson::BsonDoc BuildEntry(const ConnectionInfo& conn, const CommandRequest& request, const std::string& user,
                         const std::string& user_db, const engine::OperationInfo& info,
                         const engine::OperationStats& stats, int64_t millis, const bson::BsonDoc& reply,
                         const bson_oid_t& id) {
  bson::BsonDoc entry;
  bson_t* e = entry.mutable_get();
  BSON_APPEND_OID(e, "_id", &id);
  BSON_APPEND_UTF8(e, "op", info.op.c_str());
  BSON_APPEND_UTF8(e, "ns", info.ns.c_str());
  if (request.body.get()->len <= kMaxProfiledCommandBytes) {
    BSON_APPEND_DOCUMENT(e, "command", request.body.get());
  } else {
    bson_t truncated;
    bson_append_document_begin(e, "command", -1, &truncated);
    bson_iter_t first;
    const char* name = bson_iter_init(&first, request.body.get()) && bson_iter_next(&first) ? bson_iter_key(&first) : "";
    BSON_APPEND_UTF8(&truncated, name, "(truncated)");
    BSON_APPEND_INT32(&truncated, "size", static_cast<int32_t>(request.body.get()->len));
    bson_append_document_end(e, &truncated);
  }
  if (!stats.plan_summary.empty()) {
    engine::AppendExplainNumber(e, "keysExamined", stats.keys_examined);
    engine::AppendExplainNumber(e, "docsExamined", stats.docs_examined);
  }
  int64_t cursor_id = 0;
  const bool has_cursor = ReplyInt(reply, "cursor.id", &cursor_id);
  if (has_cursor && cursor_id != 0) BSON_APPEND_INT64(e, "cursorid", cursor_id);
  if (has_cursor && cursor_id == 0) BSON_APPEND_BOOL(e, "cursorExhausted", true);
  int64_t n = 0;
  if (info.op == "insert" && ReplyInt(reply, "n", &n)) engine::AppendExplainNumber(e, "ninserted", n);
  if (info.op == "update" && ReplyInt(reply, "n", &n)) {
    engine::AppendExplainNumber(e, "nMatched", n);
    if (ReplyInt(reply, "nModified", &n)) engine::AppendExplainNumber(e, "nModified", n);
  }
  if (info.op == "remove" && ReplyInt(reply, "n", &n)) engine::AppendExplainNumber(e, "ndeleted", n);
  engine::AppendExplainNumber(e, "numYield", stats.num_yields);
  if (stats.n_returned >= 0) engine::AppendExplainNumber(e, "nreturned", stats.n_returned);
  bson_t empty;
  bson_append_document_begin(e, "locks", -1, &empty);
  bson_append_document_end(e, &empty);
  bson_append_document_begin(e, "flowControl", -1, &empty);
  bson_append_document_end(e, &empty);
  engine::AppendExplainNumber(e, "responseLength", static_cast<int64_t>(reply.size()));
  BSON_APPEND_UTF8(e, "protocol", "op_msg");
  int64_t ok = 1;
  if (ReplyInt(reply, "ok", &ok) && ok == 0) {
    CopyReplyField(reply, "code", "errCode", e);
    CopyReplyField(reply, "codeName", "errName", e);
    CopyReplyField(reply, "errmsg", "errMsg", e);
  }
  engine::AppendExplainNumber(e, "millis", millis);
  if (!stats.plan_summary.empty()) BSON_APPEND_UTF8(e, "planSummary", stats.plan_summary.c_str());
  BSON_APPEND_DATE_TIME(e, "ts", std::chrono::duration_cast<std::chrono::milliseconds>(
                                     std::chrono::system_clock::now().time_since_epoch()).count());
  BSON_APPEND_UTF8(e, "client", HostOf(conn.remote_address).c_str());
  bson_t all_users;
  bson_append_array_begin(e, "allUsers", -1, &all_users);
  if (!user.empty()) {
    bson_t one;
    bson_append_document_begin(&all_users, "0", -1, &one);
    BSON_APPEND_UTF8(&one, "user", user.c_str());
    BSON_APPEND_UTF8(&one, "db", user_db.c_str());
    bson_append_document_end(&all_users, &one);
  }
  bson_append_array_end(e, &all_users);
  BSON_APPEND_UTF8(e, "user", user.empty() ? "" : (user + "@" + user_db).c_str());
  return entry;
}

// The profile command's reply: the settings before the command.
void AppendSettings(bson_t* out, const DatabaseSettings& previous, double sample_rate, bool sets_filter) {
  BSON_APPEND_INT32(out, "was", previous.level);
  BSON_APPEND_INT32(out, "slowms", static_cast<int32_t>(log::SlowMs()));
  BSON_APPEND_DOUBLE(out, "sampleRate", sample_rate);
  if (previous.filter_doc) BSON_APPEND_DOCUMENT(out, "filter", previous.filter_doc->get());
  if (previous.filter_doc || sets_filter) {
    BSON_APPEND_UTF8(out, "note",
                     "When a filter expression is set, slowms and sampleRate are not used for "
                     "profiling and slow-query log lines.");
  }
}

// The "Profiler settings changed" line's from / to.
void AppendState(bson_t* out, const DatabaseSettings& settings, double sample_rate) {
  BSON_APPEND_INT32(out, "level", settings.level);
  BSON_APPEND_INT32(out, "slowms", static_cast<int32_t>(log::SlowMs()));
  BSON_APPEND_DOUBLE(out, "sampleRate", sample_rate);
  if (settings.filter_doc) BSON_APPEND_DOCUMENT(out, "filter", settings.filter_doc->get());
}

}  // namespace

void ConfigureProfiler(int default_level, double sample_rate) {
  ProfilerSettings& s = Settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.default_level = default_level;
  s.sample_rate = sample_rate;
  UpdateAnyProfiling(s);
}

int ProfilingLevelOf(const std::string& db) {
  if (!g_any_profiling.load()) return 0;
  ProfilerSettings& s = Settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  return SettingsOf(s, db).level;
}

StatusWith<bson::BsonDoc> RunProfile(CommandContext& ctx) {
  bson_iter_t it;
  bson_iter_init(&it, ctx.body());
  bson_iter_next(&it);
  if (!BSON_ITER_HOLDS_NUMBER(&it)) {
    return Status(ErrorCode::kTypeMismatch, "BSON field 'profile' is the wrong type '" +
                                                std::string(BsonTypeName(bson_iter_type(&it))) +
                                                "', expected types '[long, int, decimal, double]'");
  }
  // As mongod: a level outside 0..2 (-1 by convention) only reads the
  // settings; slowms, sampleRate and filter still apply.
  const int64_t level = bson_iter_as_int64(&it);
  const bool sets_level = level >= 0 && level <= 2;
  std::optional<int64_t> slow_ms;
  std::optional<double> sample_rate;
  bool set_filter = false;
  DatabaseSettings next;
  while (bson_iter_next(&it)) {
    const std::string key = bson_iter_key(&it);
    if (key == "slowms") {
      if (!BSON_ITER_HOLDS_NUMBER(&it)) {
        return Status(ErrorCode::kTypeMismatch, "BSON field 'profile.slowms' is the wrong type '" +
                                                    std::string(BsonTypeName(bson_iter_type(&it))) +
                                                    "', expected types '[long, int, decimal, double]'");
      }
      slow_ms = bson_iter_as_int64(&it);
    } else if (key == "sampleRate") {
      if (!BSON_ITER_HOLDS_NUMBER(&it)) {
        return Status(ErrorCode::kTypeMismatch, "BSON field 'profile.sampleRate' is the wrong type '" +
                                                    std::string(BsonTypeName(bson_iter_type(&it))) +
                                                    "', expected type 'double'");
      }
      sample_rate = bson_iter_as_double(&it);
      if (!(*sample_rate >= 0.0 && *sample_rate <= 1.0)) {
        return Status(ErrorCode::kBadValue, "'sampleRate' must be between 0.0 and 1.0 inclusive");
      }
    } else if (key == "filter") {
      set_filter = true;
      if (BSON_ITER_HOLDS_UTF8(&it) && std::string_view(bson_iter_utf8(&it, nullptr)) == "unset") continue;
      if (!BSON_ITER_HOLDS_DOCUMENT(&it)) return Status(ErrorCode::kBadValue, "Expected an object, or the string 'unset'.");
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      bson::BsonDoc filter = bson::BsonDoc::CopyOf(data, len);
      ASSIGN_OR_RETURN(std::unique_ptr<query::Matcher> matcher, query::Matcher::Parse(filter.get()));
      next.filter_doc = std::make_shared<const bson::BsonDoc>(std::move(filter));
      next.filter = std::move(matcher);
    }
    // Other fields are ignored, as mongod's (its parser is not strict).
  }
  ProfilerSettings& s = Settings();
  std::lock_guard<std::mutex> lock(s.mutex);
  const DatabaseSettings previous = SettingsOf(s, ctx.db());
  bson::BsonDoc out;
  AppendSettings(out.mutable_get(), previous, s.sample_rate, set_filter);
  if (!sets_level && !slow_ms && !sample_rate && !set_filter) return out;
  bson::BsonDoc from;
  AppendState(from.mutable_get(), previous, s.sample_rate);
  if (slow_ms) log::SetSlowMs(*slow_ms);
  if (sample_rate) s.sample_rate = *sample_rate;
  next.level = sets_level ? static_cast<int>(level) : previous.level;
  if (!set_filter) {
    next.filter_doc = previous.filter_doc;
    next.filter = previous.filter;
  }
  s.databases[ctx.db()] = next;
  UpdateAnyProfiling(s);
  bson::BsonDoc to;
  AppendState(to.mutable_get(), next, s.sample_rate);
  bson::BsonDoc attr;
  BSON_APPEND_DOCUMENT(attr.mutable_get(), "from", from.get());
  BSON_APPEND_DOCUMENT(attr.mutable_get(), "to", to.get());
  log::Write(log::Severity::kInfo, "COMMAND", 48742, "Profiler settings changed", attr.get());
  return out;
}

void ProfileIfWanted(engine::Engine& engine, int level, const ConnectionInfo& conn,
                     const CommandRequest& request,
                     const std::string& user_db_name, const engine::OperationInfo& info,
                     const engine::OperationStats& stats, std::chrono::steady_clock::duration duration,
                     const bson::BsonDoc& reply) {
  if (level == 0) return;
  DatabaseSettings settings;
  double sample_rate = 1.0;
  {
    ProfilerSettings& s = Settings();
    std::lock_guard<std::mutex> lock(s.mutex);
    settings = SettingsOf(s, request.db);
    sample_rate = s.sample_rate;
  }
  if (CollectionOf(info.ns) == kProfileCollection) return;
  bson_iter_t awaiting;  // an awaitable hello waits on purpose
  if (bson_iter_init_find(&awaiting, request.body.get(), "maxAwaitTimeMS")) return;
  const int64_t millis = std::chrono::duration_cast<std::chrono::milliseconds>(duration).count();
  const size_t at = user_db_name.find('@');
  const std::string user = at == std::string::npos ? "" : user_db_name.substr(0, at);
  const std::string user_db = at == std::string::npos ? "" : user_db_name.substr(at + 1);
  bson_oid_t id;
  bson_oid_init(&id, nullptr);
  bson::BsonDoc entry = BuildEntry(conn, request, user, user_db, info, stats, millis, reply, id);
  bool wanted = level == 2;
  if (!wanted) {
    wanted = settings.filter ? settings.filter->Matches(entry.get())
                             : log::SlowMs() >= 0 && millis >= log::SlowMs() && Sampled(sample_rate);
  }
  if (!wanted) return;
  WriteBounded(engine, request.db, std::move(entry), id);
}

}  // namespace tigerdoc::wire
