#include "bench/event_crowd.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "bench/wire_client.h"
#include "bench/wire_load_requests.h"

namespace tigerdoc::bench {
namespace {

// A connection's failures: say why a few times, not a thousand.
constexpr int kMaxReportedFailures = 5;
// Room for a reply by _id (about 200 bytes) and more; a larger reply grows it.
constexpr size_t kInitialReadBuffer = 4096;
// How long the crowd waits for its last replies after the deadline.
constexpr auto kDrainTimeout = std::chrono::seconds(10);

}  // namespace

struct EventCrowd::Conn {
  int fd = -1;
  int index = 0;
  int32_t max_message_bytes = 0;
  int32_t next_request_id = 1;
  int32_t request_id = 0;
  int64_t id = -1;  // the _id read, -1 for a scan
  std::mt19937_64 rng;
  bson_t cmd = BSON_INITIALIZER;
  std::vector<uint8_t> out;  // the request being sent
  size_t sent = 0;
  std::vector<uint8_t> in;  // the reply being read
  size_t have = 0, want = 0;
  bool busy = false;       // a request is in flight
  bool wants_out = false;  // registered for EPOLLOUT (the request did not fit the socket)
  Clock::time_point t0;

  ~Conn() {
    bson_destroy(&cmd);
    if (fd >= 0) close(fd);
  }
};

StatusWith<std::unique_ptr<EventCrowd>> EventCrowd::Connect(const Options& options) {
  if (options.connections < 0 || options.shards < 1 || options.docs < 1) {
    return Status(ErrorCode::kBadValue, "EventCrowd: bad counts");
  }
  std::string host;
  int port = 0;
  RETURN_IF_ERROR(FirstHostOfUri(options.uri, &host, &port));
  std::unique_ptr<EventCrowd> crowd(new EventCrowd(options));
  for (int i = 0; i < options.connections; ++i) {
    ASSIGN_OR_RETURN(std::unique_ptr<WireClient> client, WireClient::Connect(host, port));
    auto conn = std::make_unique<Conn>();
    conn->index = i;
    conn->max_message_bytes = client->max_message_bytes();
    conn->rng.seed(1000003 + i);
    conn->in.resize(kInitialReadBuffer);
    conn->fd = client->ReleaseSocket();
    const int flags = fcntl(conn->fd, F_GETFL);
    if (flags < 0 || fcntl(conn->fd, F_SETFL, flags | O_NONBLOCK) != 0) {
      return Status(ErrorCode::kHostUnreachable, std::string("O_NONBLOCK: ") + std::strerror(errno));
    }
    crowd->conns_.push_back(std::move(conn));
  }
  return crowd;
}

EventCrowd::EventCrowd(const Options& options) : options_(options) {}

EventCrowd::~EventCrowd() = default;

void EventCrowd::Run(int shard, Clock::time_point start, Clock::time_point deadline,
                     std::vector<uint32_t>* latencies_ns, int64_t* errors) {
  int failures = 0;
  auto fail = [&](Conn* c, const std::string& why, const bson_t* reply = nullptr) {
    ++*errors;
    if (failures++ < kMaxReportedFailures) {
      char* json = reply ? bson_as_relaxed_extended_json(reply, nullptr) : nullptr;
      std::fprintf(stderr, "[event-crowd] connection %d, %s %lld: %s%s%s\n", c->index,
                   c->id < 0 ? "scan" : "read", static_cast<long long>(c->id), why.c_str(),
                   json ? ": " : "", json ? json : "");
      bson_free(json);
    }
    // The stream may be mid-message: the connection is done.
    close(c->fd);
    c->fd = -1;
    c->busy = false;
  };

  const int epfd = epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0) {
    std::fprintf(stderr, "[event-crowd] epoll_create1: %s\n", std::strerror(errno));
    ++*errors;
    return;
  }
  std::vector<Conn*> mine;
  for (size_t i = shard; i < conns_.size(); i += options_.shards) {
    Conn* c = conns_[i].get();
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = c;
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) {
      fail(c, std::string("epoll_ctl: ") + std::strerror(errno));
      continue;
    }
    mine.push_back(c);
  }

  auto set_out = [&](Conn* c, bool want_out) {
    if (c->wants_out == want_out) return true;
    epoll_event ev{};
    ev.events = want_out ? EPOLLIN | EPOLLOUT : EPOLLIN;
    ev.data.ptr = c;
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0) return false;
    c->wants_out = want_out;
    return true;
  };
  // Sends what the socket takes now; registers for EPOLLOUT if that is not all.
  auto flush = [&](Conn* c) {
    while (c->sent < c->out.size()) {
      const ssize_t n = send(c->fd, c->out.data() + c->sent, c->out.size() - c->sent, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        return fail(c, std::string("send: ") + std::strerror(errno));
      }
      c->sent += static_cast<size_t>(n);
    }
    if (!set_out(c, c->sent < c->out.size())) fail(c, std::string("epoll_ctl: ") + std::strerror(errno));
  };
  auto start_request = [&](Conn* c) {
    if (options_.scans) {
      c->id = -1;
      BuildFindNone(&c->cmd, options_.coll);
    } else {
      c->id = std::uniform_int_distribution<int64_t>(0, options_.docs - 1)(c->rng);
      BuildReadById(&c->cmd, options_.coll, c->id);
    }
    c->request_id = c->next_request_id;
    c->next_request_id = c->next_request_id == INT32_MAX ? 1 : c->next_request_id + 1;
    c->t0 = Clock::now();
    if (Status st = EncodeWireRequest(&c->cmd, options_.db, c->request_id, nullptr,
                                      c->max_message_bytes, &c->out);
        !st.ok()) {
      return fail(c, st.ToString());
    }
    c->sent = 0;
    c->have = 0;
    c->want = 0;
    c->busy = true;
    flush(c);
  };
  // Reads what has arrived; at a whole reply checks it, counts it and
  // starts the next request (until the deadline).
  auto receive = [&](Conn* c) {
    for (;;) {
      const size_t room = c->want == 0 ? c->in.size() - c->have : c->want - c->have;
      const ssize_t n = recv(c->fd, c->in.data() + c->have, room, 0);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return;
        return fail(c, std::string("recv: ") + std::strerror(errno));
      }
      if (n == 0) return fail(c, "the server closed the connection");
      if (!c->busy) return fail(c, "bytes from the server with no request in flight");
      c->have += static_cast<size_t>(n);
      if (c->want == 0 && c->have >= 4) {
        StatusWith<size_t> len = WireReplyLength(c->in.data(), c->max_message_bytes);
        if (!len.ok()) return fail(c, len.status().ToString());
        c->want = len.value();
        // One request at a time: nothing may follow its reply.
        if (c->have > c->want) return fail(c, "bytes after the reply to a single request");
        if (c->in.size() < c->want) c->in.resize(c->want);
      }
      if (c->want == 0 || c->have < c->want) continue;
      const Clock::time_point now = Clock::now();
      bson_t reply;
      if (Status st = ParseWireReply(c->in.data(), c->want, c->request_id, &reply); !st.ok()) {
        return fail(c, st.ToString());
      }
      if (Status st = WireReplyStatus(&reply); !st.ok()) return fail(c, st.ToString(), &reply);
      const std::string why =
          options_.scans ? CheckFindNoneReply(&reply) : CheckReadByIdReply(&reply, c->id);
      if (!why.empty()) return fail(c, why, &reply);
      latencies_ns->push_back(static_cast<uint32_t>(std::min<int64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now - c->t0).count(), UINT32_MAX)));
      c->busy = false;
      if (now < deadline) start_request(c);
      return;
    }
  };

  std::this_thread::sleep_until(start);
  for (Conn* c : mine) start_request(c);
  std::vector<epoll_event> events(std::max<size_t>(mine.size(), 1));
  const Clock::time_point give_up = deadline + kDrainTimeout;
  for (;;) {
    const Clock::time_point now = Clock::now();
    const bool any_busy = std::any_of(mine.begin(), mine.end(), [](Conn* c) { return c->busy; });
    if (!any_busy) break;
    if (now >= give_up) {
      for (Conn* c : mine) {
        if (c->busy) fail(c, "no reply within 10 s of the end");
      }
      break;
    }
    const int n = epoll_wait(epfd, events.data(), static_cast<int>(events.size()), 100);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::fprintf(stderr, "[event-crowd] epoll_wait: %s\n", std::strerror(errno));
      ++*errors;
      break;
    }
    for (int i = 0; i < n; ++i) {
      Conn* c = static_cast<Conn*>(events[i].data.ptr);
      if (c->fd < 0) continue;  // failed earlier in this batch
      if (events[i].events & (EPOLLERR | EPOLLHUP)) {
        if (!(events[i].events & EPOLLIN)) {
          fail(c, "socket error or hang-up");
          continue;
        }
      }
      if ((events[i].events & EPOLLOUT) && c->busy) flush(c);
      if (c->fd >= 0 && (events[i].events & EPOLLIN)) receive(c);
    }
  }
  close(epfd);
}

}  // namespace tigerdoc::bench
