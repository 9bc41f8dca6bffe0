#include "bench/process_cpu.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace tigerdoc::bench {
namespace {

// Fields of /proc/<pid>/stat after the command name, which is in
// parentheses and may itself hold spaces: (3) state, (4) ppid, ...,
// (14) utime, (15) stime, in clock ticks.
bool ReadStat(pid_t pid, long* ppid, double* cpu_seconds) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "r");
  if (f == nullptr) return false;
  char buf[1024];
  size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return false;
  p += 2;  // ") "
  unsigned long long values[13] = {};
  // state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
  char state = 0;
  int got = std::sscanf(p, "%c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &state,
                        &values[0], &values[1], &values[2], &values[3], &values[4], &values[5],
                        &values[6], &values[7], &values[8], &values[9], &values[10], &values[11]);
  if (got != 13) return false;
  static const double kTicks = static_cast<double>(sysconf(_SC_CLK_TCK));
  *ppid = static_cast<long>(values[0]);
  *cpu_seconds = static_cast<double>(values[10] + values[11]) / kTicks;
  return true;
}

}  // namespace

double ProcessCpuSeconds(pid_t pid) {
  long ppid;
  double cpu;
  return ReadStat(pid, &ppid, &cpu) ? cpu : -1;
}

double ProcessTreeCpuSeconds(pid_t pid) {
  double total = ProcessCpuSeconds(pid);
  if (total < 0) return -1;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return total;
  while (dirent* e = readdir(dir)) {
    char* end = nullptr;
    long child = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || child == pid) continue;
    long ppid;
    double cpu;
    if (ReadStat(static_cast<pid_t>(child), &ppid, &cpu) && ppid == pid) total += cpu;
  }
  closedir(dir);
  return total;
}

double SelfCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

}  // namespace tigerdoc::bench
