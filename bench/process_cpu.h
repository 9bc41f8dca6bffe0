#pragma once
// CPU time of other processes, for "server CPU per operation": utime+stime
// from /proc/<pid>/stat. For a multi-threaded server (tigerdoc) the
// process's own line already sums its threads, exited ones included; for a
// multi-process server (PostgreSQL: one backend process per connection,
// plus the WAL writer, checkpointer, ...) ProcessTreeCpuSeconds adds the
// direct children of the postmaster. Sample before and after a run while
// the measured connections are open (a backend that exits takes its time
// with it until the postmaster reaps it).
//
// Thread-safety: pure reads of /proc; callable from any thread.

#include <sys/types.h>

namespace tigerdoc::bench {

// utime+stime of `pid` in seconds, or -1 when it cannot be read.
double ProcessCpuSeconds(pid_t pid);

// The same for `pid` plus every process whose parent is `pid`; -1 when
// `pid` itself cannot be read.
double ProcessTreeCpuSeconds(pid_t pid);

// This process (every thread): for an in-process engine the client and the
// "server" are one and the same.
double SelfCpuSeconds();

}  // namespace tigerdoc::bench
