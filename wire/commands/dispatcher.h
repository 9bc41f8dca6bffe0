#pragma once
// Dispatcher: the RequestHandler the server calls for every command.
//
//   request ─▶ name = first field ─▶ FindCommand ─▶ command-agnostic checks
//           ─▶ authorization (the table's actions, wire/auth/auth_manager.h)
//           ─▶ handler(ctx) ─▶ {fields..., ok: 1}  or  ErrorReply(status)
//
// Command-agnostic work lives here; command-specific work in the handler.
// Thread-safety: Handle() is called from many worker threads at once.

#include "engine/engine.h"
#include "engine/query/interrupt.h"
#include "wire/auth/auth_manager.h"
#include "wire/commands/command.h"
#include "wire/commands/operation_log.h"
#include "wire/server/request_handler.h"

namespace tigerdoc::wire {

class Dispatcher : public RequestHandler {
 public:
  Dispatcher(engine::Engine* engine, ServerInfo* server)
      : engine_(engine), server_(server), auth_(engine, server->auth) {}
  bson::BsonDoc Handle(const ConnectionInfo& conn, const CommandRequest& request) override;
  // Handle() and ReplyHoldsState() from the one walk of the reply that the
  // serverStatus counters make.
  HandledRequest HandleRequest(const ConnectionInfo& conn, const CommandRequest& request) override;
  void OnConnectionOpened(const ConnectionInfo& conn) override {
    conn.handler_state = std::make_shared<auth::AuthSession>();
    LogConnectionAccepted(conn, server_->current_connections.fetch_add(1) + 1);
    server_->total_connections.fetch_add(1);
  }
  void OnConnectionClosed(const ConnectionInfo& conn) override {
    LogConnectionEnded(conn, server_->current_connections.fetch_sub(1) - 1);
  }
  // Kills the cursor a dropped reply opened ({cursor: {id, ns}}).
  void OnReplyUndelivered(const ConnectionInfo& conn, const bson::BsonDoc& reply) override;
  // True when the reply hands over an open cursor ({cursor: {id: != 0}}).
  bool ReplyHoldsState(const bson::BsonDoc& reply) const override;
  // The table's compress_reply column; a command it does not have is
  // compressed (its reply is an error).
  bool MayCompressReplyTo(std::string_view command) const override;
  // Every running request's next interrupt check answers 11600.
  void OnServerStopping() override {
    query::RequestShutdown();
    engine_->operations().long_work().WakeWaiters();  // waiting long work ends with 11600 too
  }

 private:
  // Handle() without its log lines; fills what the command's operation
  // showed (when `info` is not null) and did (empty when it was refused
  // before it ran).
  bson::BsonDoc Dispatch(const ConnectionInfo& conn, const CommandRequest& request,
                         engine::OperationInfo* info, engine::OperationStats* stats);

  engine::Engine* engine_;
  ServerInfo* server_;
  auth::AuthManager auth_;
};

}  // namespace tigerdoc::wire
