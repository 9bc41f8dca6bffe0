#include "wire/commands/server_metrics.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/bson/raw_fields.h"
#include "engine/storage/wt_statistics.h"
#include "wire/commands/command_registry.h"
#include "wire/commands/reply_facts.h"
#include "wire/protocol/op_compressed.h"

namespace tigerdoc::wire {
namespace {

struct Counters {
  std::atomic<int64_t> insert{0}, query{0}, update{0}, remove{0}, getmore{0}, command{0};
  std::atomic<int64_t> inserted{0}, updated{0}, deleted{0}, returned{0};
  std::atomic<int64_t> bytes_in{0}, bytes_out{0}, requests{0};
  // opLatencies: total microseconds and operations per class.
  std::atomic<int64_t> read_micros{0}, read_ops{0}, write_micros{0}, write_ops{0}, command_micros{0},
      command_ops{0};
};

// top: one entry per namespace, under a mutex (one short critical section
// per command).
struct TopEntry {
  struct Pair {
    int64_t time = 0, count = 0;
    void Add(int64_t micros) { time += micros, ++count; }
  };
  Pair total, read_lock, write_lock, queries, getmore, insert, update, remove, commands;
};
struct Top {
  std::mutex mu;
  std::map<std::string, TopEntry, std::less<>> by_ns;  // string_view lookups
};
Top& T() {
  static Top* top = new Top();
  return *top;
}

// The collection a command works on: its first field's string ("find":
// "c"), or getMore's "collection"; empty when there is none.
// Borrowed from `body`.
std::string_view CollectionOf(const CommandSpec& spec, const bson_t* body) {
  bson_iter_t it;
  uint32_t len = 0;
  if (spec.traits.op == LogicalOp::kGetMore) {
    if (bson_iter_init_find(&it, body, "collection") && BSON_ITER_HOLDS_UTF8(&it)) {
      const char* s = bson_iter_utf8(&it, &len);
      return {s, len};
    }
    return {};
  }
  // The first element through RawFields (libbson's iterator cost a sixth
  // of RecordCommand for a find by _id, issue #18); libbson when the walk
  // cannot tell.
  bson::RawFields first(body);
  if (first.Next()) {
    if (first.type() != BSON_TYPE_UTF8) return {};
    // The value: an int32 length (RawFields checked it fits), the bytes
    // and their NUL, as bson_iter_utf8 reads them.
    const uint8_t* value = bson_get_data(body) + first.offset() + 1 + first.key().size() + 1;
    int32_t n;
    std::memcpy(&n, value, sizeof n);
    return {reinterpret_cast<const char*>(value + 4), static_cast<size_t>(n) - 1};
  }
  if (!first.broken()) return {};
  if (bson_iter_init(&it, body) && bson_iter_next(&it) && BSON_ITER_HOLDS_UTF8(&it)) {
    const char* s = bson_iter_utf8(&it, &len);
    return {s, len};
  }
  return {};
}

// Whether the reply says the command never ran: refused before it started
// (not authenticated/authorized, bad namespace), so it names no real
// namespace and must not grow top's map.
bool RefusedBeforeRunning(const ReplyFacts& reply) {
  const int64_t code = reply.code;
  return code == 13 /* Unauthorized */ || code == 59 /* CommandNotFound */ ||
         code == 73 /* InvalidNamespace */;
}

// top keeps at most this many namespaces (a backstop against clients that
// name millions of collections that do not exist); entries of dropped
// collections and databases leave it.
constexpr size_t kMaxTopNamespaces = 10000;
// MongoDB's longest namespace ("db.collection") in bytes.
constexpr size_t kMaxNamespaceBytes = 255;

// Removes a dropped collection's entry, or a dropped database's entries.
void ForgetTopNamespaces(const CommandSpec& spec, const CommandRequest& request) {
  Top& top = T();
  std::lock_guard<std::mutex> lock(top.mu);
  if (spec.name == "drop") {
    top.by_ns.erase(request.db + "." + std::string(CollectionOf(spec, request.body.get())));
    return;
  }
  const std::string prefix = request.db + ".";
  for (auto it = top.by_ns.lower_bound(prefix); it != top.by_ns.end() && it->first.rfind(prefix, 0) == 0;) {
    it = top.by_ns.erase(it);
  }
}

// Only commands that lock the collection their first field names count in
// top (the table's lock column), as in mongod, where Top records the
// collection a command locked.
void RecordTop(const CommandSpec& spec, const CommandRequest& request, const ReplyFacts& reply,
               int64_t micros) {
  if (spec.traits.lock == CollectionLock::kNone || RefusedBeforeRunning(reply)) return;
  const std::string_view coll = CollectionOf(spec, request.body.get());
  if (coll.empty() || request.db.size() + 1 + coll.size() > kMaxNamespaceBytes) return;
  const bool read = spec.traits.lock == CollectionLock::kRead;
  const bool write = spec.traits.lock == CollectionLock::kWrite;
  // "db.collection" on the stack: a std::string of it was an allocation
  // per command once longer than the short-string buffer.
  char ns_bytes[kMaxNamespaceBytes];
  std::memcpy(ns_bytes, request.db.data(), request.db.size());
  ns_bytes[request.db.size()] = '.';
  std::memcpy(ns_bytes + request.db.size() + 1, coll.data(), coll.size());
  const std::string_view ns(ns_bytes, request.db.size() + 1 + coll.size());
  Top& top = T();
  std::lock_guard<std::mutex> lock(top.mu);
  auto found = top.by_ns.find(ns);
  if (found == top.by_ns.end()) {
    if (top.by_ns.size() >= kMaxTopNamespaces) return;
    found = top.by_ns.emplace(ns, TopEntry{}).first;
  }
  TopEntry& e = found->second;
  e.total.Add(micros);
  if (read) e.read_lock.Add(micros);
  if (write) e.write_lock.Add(micros);
  switch (spec.traits.op) {
    case LogicalOp::kQuery: e.queries.Add(micros); break;
    case LogicalOp::kGetMore: e.getmore.Add(micros); break;
    case LogicalOp::kInsert: e.insert.Add(micros); break;
    case LogicalOp::kUpdate: e.update.Add(micros); break;
    case LogicalOp::kRemove: e.remove.Add(micros); break;
    case LogicalOp::kCommand: e.commands.Add(micros); break;
  }
}

Counters& C() {
  static Counters* counters = new Counters();
  return *counters;
}

void Add(std::atomic<int64_t>& counter, int64_t n) { counter.fetch_add(n, std::memory_order_relaxed); }

// Elements of the top-level array `field` of `doc`; 0 when it is missing
// or not an array.
int64_t ArrayCount(const bson_t* doc, std::string_view field) {
  bson_iter_t it, child;
  if (!bson::FindTopLevel(doc, field, &it) || !BSON_ITER_HOLDS_ARRAY(&it) ||
      !bson_iter_recurse(&it, &child)) {
    return 0;
  }
  int64_t n = 0;
  while (bson_iter_next(&child)) ++n;
  return n;
}

// Statements of a write: its array field, or the documents of the
// sequence with the same name (OP_MSG kind 1). A parsed request never has
// both (ParseOpMsg answers 40433), so the body, which libbson walked element
// by element to miss the field (half of RecordCommand for a one-document
// insert, issue #18), is looked at only when no sequence carries them.
int64_t Statements(const CommandRequest& request, std::string_view field) {
  for (const auto& sequence : request.sequences) {
    if (sequence.identifier == field) return static_cast<int64_t>(sequence.documents.size());
  }
  return ArrayCount(request.body.get(), field);
}

}  // namespace

namespace {
std::atomic<int64_t> g_active_requests{0};
}  // namespace

ActiveRequest::ActiveRequest() { g_active_requests.fetch_add(1, std::memory_order_relaxed); }
ActiveRequest::~ActiveRequest() { g_active_requests.fetch_sub(1, std::memory_order_relaxed); }
int64_t ActiveRequests() { return g_active_requests.load(std::memory_order_relaxed); }

void AppendCursorMetrics(bson_t* metrics, const query::CursorStats& stats) {
  bson_t cursor, open;
  bson_append_document_begin(metrics, "cursor", -1, &cursor);
  BSON_APPEND_INT64(&cursor, "timedOut", stats.timed_out);
  BSON_APPEND_INT64(&cursor, "totalOpened", stats.total_opened);
  bson_append_document_begin(&cursor, "open", -1, &open);
  BSON_APPEND_INT64(&open, "noTimeout", stats.open_no_timeout);
  BSON_APPEND_INT64(&open, "pinned", stats.open_pinned);
  BSON_APPEND_INT64(&open, "total", stats.open_total);
  bson_append_document_end(&cursor, &open);
  bson_append_document_end(metrics, &cursor);
}

void AppendWiredTigerMetrics(storage::StorageEngine& storage, bson_t* out) {
  storage::Session session = storage.NewUnboundSession();
  auto statistics = storage::ReadConnectionStatistics(session);
  if (!statistics.ok()) return;
  // Grouped by section, sections in the order WiredTiger first lists them.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const storage::WtStatistic*>> sections;
  for (const storage::WtStatistic& stat : statistics.value()) {
    auto& list = sections[stat.section];
    if (list.empty()) order.push_back(stat.section);
    list.push_back(&stat);
  }
  bson_t wired_tiger;
  bson_append_document_begin(out, "wiredTiger", -1, &wired_tiger);
  for (const std::string& name : order) {
    bson_t section;
    bson_append_document_begin(&wired_tiger, name.c_str(), -1, &section);
    for (const storage::WtStatistic* stat : sections[name]) {
      BSON_APPEND_INT64(&section, stat->name.c_str(), stat->value);
    }
    bson_append_document_end(&wired_tiger, &section);
  }
  bson_append_document_end(out, &wired_tiger);
}

ReplyFacts RecordCommand(std::string_view name, const CommandRequest& request, const bson::BsonDoc& reply,
                   std::chrono::steady_clock::duration duration) {
  Counters& c = C();
  const ReplyFacts facts = ReadReplyFacts(reply.get());
  int64_t in_bytes = request.body.get()->len;
  for (const auto& sequence : request.sequences) {
    for (const auto& doc : sequence.documents) in_bytes += doc.size();
  }
  Add(c.bytes_in, in_bytes);
  Add(c.bytes_out, static_cast<int64_t>(reply.size()));
  Add(c.requests, 1);
  const int64_t micros = std::chrono::duration_cast<std::chrono::microseconds>(duration).count();
  // A command the table does not have counts as a command, and not in top.
  static constexpr CommandSpec kUnknown{"", nullptr};
  const CommandSpec* found = FindCommand(name);
  const CommandSpec& spec = found != nullptr ? *found : kUnknown;
  if ((name == "drop" || name == "dropDatabase") && facts.ok == 1) {
    ForgetTopNamespaces(spec, request);
  } else {
    RecordTop(spec, request, facts, micros);
  }
  switch (spec.traits.op) {
    case LogicalOp::kInsert:
      Add(c.insert, Statements(request, "documents"));
      Add(c.inserted, facts.n);
      break;
    case LogicalOp::kUpdate:
      Add(c.update, Statements(request, "updates"));
      Add(c.updated, facts.n_modified);
      break;
    case LogicalOp::kRemove:
      Add(c.remove, Statements(request, "deletes"));
      Add(c.deleted, facts.n);
      break;
    case LogicalOp::kQuery:
      Add(c.query, 1);
      Add(c.returned, facts.batch);
      break;
    case LogicalOp::kGetMore:
      Add(c.getmore, 1);
      Add(c.returned, facts.batch);
      break;
    case LogicalOp::kCommand:
      Add(c.command, 1);
      if (name == "aggregate") Add(c.returned, facts.batch);
      break;
  }
  // opLatencies classes by the command's kind (MongoDB's ReadWriteType).
  switch (spec.traits.kind) {
    case CommandKind::kRead:
      Add(c.read_micros, micros);
      Add(c.read_ops, 1);
      break;
    case CommandKind::kWrite:
      Add(c.write_micros, micros);
      Add(c.write_ops, 1);
      break;
    case CommandKind::kCommand:
      Add(c.command_micros, micros);
      Add(c.command_ops, 1);
      break;
  }
  return facts;
}

void AppendServerMetrics(bson_t* out) {
  Counters& c = C();
  auto get = [](const std::atomic<int64_t>& v) { return v.load(std::memory_order_relaxed); };
  bson_t section, inner;
  bson_append_document_begin(out, "opcounters", -1, &section);
  BSON_APPEND_INT64(&section, "insert", get(c.insert));
  BSON_APPEND_INT64(&section, "query", get(c.query));
  BSON_APPEND_INT64(&section, "update", get(c.update));
  BSON_APPEND_INT64(&section, "delete", get(c.remove));
  BSON_APPEND_INT64(&section, "getmore", get(c.getmore));
  BSON_APPEND_INT64(&section, "command", get(c.command));
  bson_append_document_end(out, &section);

  bson_append_document_begin(out, "opLatencies", -1, &section);
  const std::pair<const char*, std::pair<const std::atomic<int64_t>*, const std::atomic<int64_t>*>> classes[] = {
      {"reads", {&c.read_micros, &c.read_ops}},
      {"writes", {&c.write_micros, &c.write_ops}},
      {"commands", {&c.command_micros, &c.command_ops}}};
  for (const auto& [key, counters] : classes) {
    bson_append_document_begin(&section, key, -1, &inner);
    BSON_APPEND_INT64(&inner, "latency", get(*counters.first));
    BSON_APPEND_INT64(&inner, "ops", get(*counters.second));
    bson_append_document_end(&section, &inner);
  }
  bson_append_document_end(out, &section);

  bson_append_document_begin(out, "network", -1, &section);
  BSON_APPEND_INT64(&section, "bytesIn", get(c.bytes_in));
  BSON_APPEND_INT64(&section, "bytesOut", get(c.bytes_out));
  BSON_APPEND_INT64(&section, "numRequests", get(c.requests));
  AppendCompressionStatus(&section);  // network.compression (wire/protocol/op_compressed.h)
  bson_append_document_end(out, &section);

  // mem in MiB, as mongod: resident and virtual from /proc/self/statm.
  long pages_virtual = 0, pages_resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages_virtual, &pages_resident) != 2) pages_virtual = pages_resident = 0;
    std::fclose(f);
  }
  const int64_t page = sysconf(_SC_PAGESIZE);
  bson_append_document_begin(out, "mem", -1, &section);
  BSON_APPEND_INT32(&section, "bits", 64);
  BSON_APPEND_INT64(&section, "resident", pages_resident * page / (1024 * 1024));
  BSON_APPEND_INT64(&section, "virtual", pages_virtual * page / (1024 * 1024));
  BSON_APPEND_BOOL(&section, "supported", true);
  bson_append_document_end(out, &section);
}

void AppendDocumentMetrics(bson_t* metrics) {
  Counters& c = C();
  bson_t document;
  bson_append_document_begin(metrics, "document", -1, &document);
  BSON_APPEND_INT64(&document, "deleted", c.deleted.load(std::memory_order_relaxed));
  BSON_APPEND_INT64(&document, "inserted", c.inserted.load(std::memory_order_relaxed));
  BSON_APPEND_INT64(&document, "returned", c.returned.load(std::memory_order_relaxed));
  BSON_APPEND_INT64(&document, "updated", c.updated.load(std::memory_order_relaxed));
  bson_append_document_end(metrics, &document);
}

void AppendTopTotals(bson_t* out) {
  Top& top = T();
  std::lock_guard<std::mutex> lock(top.mu);
  bson_t totals, ns, pair;
  bson_append_document_begin(out, "totals", -1, &totals);
  BSON_APPEND_UTF8(&totals, "note", "all times in microseconds");
  for (const auto& [name, e] : top.by_ns) {
    bson_append_document_begin(&totals, name.c_str(), -1, &ns);
    const std::pair<const char*, const TopEntry::Pair*> pairs[] = {
        {"total", &e.total},     {"readLock", &e.read_lock}, {"writeLock", &e.write_lock},
        {"queries", &e.queries}, {"getmore", &e.getmore},    {"insert", &e.insert},
        {"update", &e.update},   {"remove", &e.remove},      {"commands", &e.commands}};
    for (const auto& [key, p] : pairs) {
      bson_append_document_begin(&ns, key, -1, &pair);
      BSON_APPEND_INT64(&pair, "time", p->time);
      BSON_APPEND_INT64(&pair, "count", p->count);
      bson_append_document_end(&ns, &pair);
    }
    bson_append_document_end(&totals, &ns);
  }
  bson_append_document_end(out, &totals);
}

}  // namespace tigerdoc::wire
