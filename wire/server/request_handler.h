#pragma once
// RequestHandler: what the server calls for every parsed command. The wire
// server knows framing and sockets; everything a command means lives behind
// this interface (implemented by wire/commands).
//
// Threading: Handle() runs on the connection's own thread (connection.h),
// so it may block (WiredTiger calls do). It is called concurrently for
// different connections; calls for one connection are sequential and in
// the order the client sent the requests.
//
// Ownership: the server borrows the handler; it must outlive the Server.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/bson/bson_doc.h"
#include "wire/protocol/message.h"

namespace tigerdoc::wire {

struct ConnectionInfo {
  int64_t connection_id = 0;   // 1, 2, 3, ... in accept order, per Server
  std::string remote_address;  // "127.0.0.1:54321" or "[::1]:54321"
  std::string local_address;
  // The handler's own state of this connection (the dispatcher keeps its
  // authenticated user there), set in OnConnectionOpened; the server only
  // keeps it alive as long as the connection.
  mutable std::shared_ptr<void> handler_state;
};

class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // Returns the reply body: {ok: 1, ...} or {ok: 0, errmsg, code, codeName}.
  // Must not throw (the server turns an escaped exception into an
  // InternalError reply, but that is a bug in the handler).
  virtual bson::BsonDoc Handle(const ConnectionInfo& conn, const CommandRequest& request) = 0;

  // A connection was accepted / its last use ended (for serverStatus's
  // connection counts). Called from any thread; the default does nothing.
  virtual void OnConnectionOpened(const ConnectionInfo&) {}
  virtual void OnConnectionClosed(const ConnectionInfo&) {}
  // The client left while its command ran, so `reply` (what Handle
  // returned) is dropped: release what it holds (a cursor nobody can
  // reach). Called on the connection's thread, which ran the command.
  virtual void OnReplyUndelivered(const ConnectionInfo&, const bson::BsonDoc& /*reply*/) {}
  // Whether `reply` holds something OnReplyUndelivered would release (an
  // open cursor). Only then does the connection look whether the client
  // is still there before answering: that look is a poll(2), and a find by
  // _id made three syscalls instead of two with it on every reply (issue
  // #18, bench/README.md "CPU per find, round 4"). A reply that holds
  // nothing is sent anyway; a client that left ends the connection at the
  // next read. Called on the connection's thread; the default says yes.
  virtual bool ReplyHoldsState(const bson::BsonDoc& /*reply*/) const { return true; }

  // Handle() and ReplyHoldsState() of its reply in one call, which is what
  // the connection calls for every request. A handler that reads its reply
  // anyway (the dispatcher counts it for serverStatus) overrides this to
  // answer both from one walk of the reply (issue #18, bench/README.md "CPU
  // per find, round 5"); it must agree with Handle() and ReplyHoldsState().
  struct HandledRequest {
    bson::BsonDoc reply;
    bool holds_state = true;
  };
  virtual HandledRequest HandleRequest(const ConnectionInfo& conn, const CommandRequest& request) {
    HandledRequest out{Handle(conn, request)};
    out.holds_state = ReplyHoldsState(out.reply);
    return out;
  }

  // Whether the reply to a compressed request for `command` is compressed
  // too (not the handshake and authentication replies MongoDB's
  // compression spec lists). Called on the connection's thread; the
  // default compresses every reply.
  virtual bool MayCompressReplyTo(std::string_view /*command*/) const { return true; }

  // The server stopped accepting and reading; requests still running should
  // end soon (the server then joins the threads running them). Called once,
  // from the thread that ran Server::Run.
  virtual void OnServerStopping() {}
};

}  // namespace tigerdoc::wire
