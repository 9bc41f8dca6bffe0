#pragma once
// ServerProcess: runs the real tigerdoc server binary for end-to-end tests.
//
// Start() picks a free loopback port, makes a fresh temporary directory
// (dbpath `<tmp>/db`, server output in `<tmp>/server.log`), spawns the
// binary and waits until it accepts TCP connections. Kill9() and Stop()
// end the process abruptly or cleanly; Restart() starts it again on the
// same dbpath and port, which is how persistence and crash recovery are
// tested. The destructor SIGKILLs a still-running server and removes the
// temporary directory.
//
// The child is started with PR_SET_PDEATHSIG=SIGKILL so a crashed test never
// leaves a server behind. Linux ties that signal to the *thread* that forked,
// so Start()/Restart() must be called from a thread that outlives the
// server (the test's main thread).
//
// Thread-safety: not thread-safe; one test thread drives it. Other threads
// may use the server through its uri() while it runs.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "engine/base/status.h"

namespace tigerdoc::testutil {

// The binary CMake built for this tree (empty when the tigerdoc target did
// not exist at configure time); the TIGERDOC_SERVER_BINARY environment
// variable overrides it.
std::string DefaultServerBinary();

class ServerProcess {
 public:
  struct Options {
    std::string binary = DefaultServerBinary();
    int shards = 0;          // --shards when > 0
    int cache_size_mb = 64;  // --cacheSizeMB when > 0; small: 5 engineers share 24 GiB
    std::vector<std::string> extra_args;
    // When set, the server's --dbpath: an existing directory the caller owns
    // (e.g. a mount point); it is neither created nor removed here.
    std::string dbpath;
    std::chrono::milliseconds start_timeout{20000};
    std::chrono::milliseconds stop_timeout{20000};
  };

  ServerProcess() : ServerProcess(Options{}) {}
  explicit ServerProcess(Options options);
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Creates the temporary directory, chooses a port and starts the server.
  // REQUIRES: not started before.
  Status Start();
  // SIGTERM, then waits for exit. Fails when the process does not exit in
  // stop_timeout (it is then SIGKILLed) or exits with a non-zero status or
  // by a signal. REQUIRES: running().
  Status Stop();
  // SIGKILL and reap: a crash at an arbitrary point. REQUIRES: running().
  void Kill9();
  // Waits up to `timeout` for the server to exit on its own and reaps it:
  // its waitpid status, or -1 when it is still running (it is left so).
  // REQUIRES: running().
  int WaitForExit(std::chrono::milliseconds timeout);
  // Starts the server again on the same dbpath and port.
  // REQUIRES: started before and not running().
  Status Restart();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  const std::string& dbpath() const { return dbpath_; }
  // mongodb://127.0.0.1:PORT/?directConnection=true&serverSelectionTimeoutMS=...
  std::string uri() const;
  // The last `max_bytes` of everything the server printed (all runs).
  std::string LogTail(size_t max_bytes = 4000) const;

 private:
  Status Spawn();
  Status WaitUntilReady();

  Options options_;
  std::string root_;  // temporary directory owning dbpath_ and the log
  std::string dbpath_;
  std::string log_path_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// A loopback TCP port that was free a moment ago (bind to port 0, read it,
// close). Racy by nature; good enough for tests on one machine.
StatusWith<int> PickFreePort();

// True when a TCP connection to 127.0.0.1:port succeeds.
bool CanConnect(int port);

}  // namespace tigerdoc::testutil
