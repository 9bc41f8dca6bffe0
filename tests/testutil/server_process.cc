#include "tests/testutil/server_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace tigerdoc::testutil {
namespace {

using Clock = std::chrono::steady_clock;

std::string ErrnoText(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

// Describes a waitpid status for failure messages.
std::string DescribeExit(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

// Waits up to `timeout` for `pid` to exit; returns its wait status, or -1
// when it is still running.
int WaitForPid(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (true) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return 0;  // already reaped: nothing to report
    if (Clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

std::string DefaultServerBinary() {
  if (const char* env = std::getenv("TIGERDOC_SERVER_BINARY"); env && *env) return env;
#ifdef TIGERDOC_SERVER_BINARY
  return TIGERDOC_SERVER_BINARY;
#else
  return "";
#endif
}

StatusWith<int> PickFreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status(ErrorCode::kInternalError, ErrnoText("socket"));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    Status st(ErrorCode::kInternalError, ErrnoText("bind/getsockname"));
    close(fd);
    return st;
  }
  close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

bool CanConnect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

ServerProcess::ServerProcess(Options options) : options_(std::move(options)) {}

ServerProcess::~ServerProcess() {
  if (running()) Kill9();
  if (!root_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
}

std::string ServerProcess::uri() const {
  return "mongodb://127.0.0.1:" + std::to_string(port_) +
         "/?directConnection=true&serverSelectionTimeoutMS=5000"
         "&connectTimeoutMS=5000&socketTimeoutMS=60000";
}

Status ServerProcess::Start() {
  INVARIANT(root_.empty());
  if (options_.binary.empty()) {
    return Status(ErrorCode::kInternalError,
                  "no tigerdoc binary: build the tigerdoc target or set TIGERDOC_SERVER_BINARY");
  }
  if (access(options_.binary.c_str(), X_OK) != 0) {
    return Status(ErrorCode::kInternalError,
                  "server binary " + options_.binary + " is not executable: " + std::strerror(errno));
  }
  std::string templ = (std::filesystem::temp_directory_path() / "tigerdoc-e2e-XXXXXX").string();
  if (mkdtemp(templ.data()) == nullptr) return Status(ErrorCode::kInternalError, ErrnoText("mkdtemp"));
  root_ = templ;
  dbpath_ = options_.dbpath.empty() ? root_ + "/db" : options_.dbpath;
  log_path_ = root_ + "/server.log";
  if (options_.dbpath.empty()) std::filesystem::create_directory(dbpath_);
  ASSIGN_OR_RETURN(port_, PickFreePort());
  return Spawn();
}

Status ServerProcess::Restart() {
  INVARIANT(!root_.empty() && !running());
  return Spawn();
}

Status ServerProcess::Spawn() {
  std::vector<std::string> args = {options_.binary,       "--port",   std::to_string(port_),
                                   "--bind_ip",           "127.0.0.1", "--dbpath",
                                   dbpath_};
  if (options_.shards > 0) {
    args.insert(args.end(), {"--shards", std::to_string(options_.shards)});
  }
  if (options_.cache_size_mb > 0) {
    args.insert(args.end(), {"--cacheSizeMB", std::to_string(options_.cache_size_mb)});
  }
  args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  {
    std::ofstream log(log_path_, std::ios::app);
    log << "==== testutil: starting";
    for (const auto& a : args) log << ' ' << a;
    log << '\n';
  }
  int log_fd = open(log_path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (log_fd < 0) return Status(ErrorCode::kInternalError, ErrnoText("open server log"));

  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(log_fd);
    return Status(ErrorCode::kInternalError, ErrnoText("fork"));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(log_fd);
  pid_ = pid;
  return WaitUntilReady();
}

Status ServerProcess::WaitUntilReady() {
  const auto deadline = Clock::now() + options_.start_timeout;
  while (Clock::now() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return Status(ErrorCode::kInternalError,
                    "server " + DescribeExit(status) + " before accepting connections; log:\n" +
                        LogTail());
    }
    if (CanConnect(port_)) return Status::OK();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Kill9();
  return Status(ErrorCode::kInternalError,
                "server did not accept connections on port " + std::to_string(port_) + " within " +
                    std::to_string(options_.start_timeout.count()) + " ms; log:\n" + LogTail());
}

Status ServerProcess::Stop() {
  INVARIANT(running());
  if (kill(pid_, SIGTERM) != 0) return Status(ErrorCode::kInternalError, ErrnoText("kill SIGTERM"));
  int status = WaitForPid(pid_, options_.stop_timeout);
  if (status == -1) {
    Kill9();
    return Status(ErrorCode::kInternalError,
                  "server did not exit within " + std::to_string(options_.stop_timeout.count()) +
                      " ms of SIGTERM; log:\n" + LogTail());
  }
  pid_ = -1;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status(ErrorCode::kInternalError,
                  "server " + DescribeExit(status) + " after SIGTERM; log:\n" + LogTail());
  }
  return Status::OK();
}

void ServerProcess::Kill9() {
  INVARIANT(running());
  kill(pid_, SIGKILL);
  WaitForPid(pid_, std::chrono::milliseconds(60000));
  pid_ = -1;
}

int ServerProcess::WaitForExit(std::chrono::milliseconds timeout) {
  INVARIANT(running());
  int status = WaitForPid(pid_, timeout);
  if (status != -1) pid_ = -1;
  return status;
}

std::string ServerProcess::LogTail(size_t max_bytes) const {
  std::ifstream in(log_path_, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string all = ss.str();
  return all.size() <= max_bytes ? all : all.substr(all.size() - max_bytes);
}

}  // namespace tigerdoc::testutil
