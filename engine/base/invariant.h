#pragma once
// INVARIANT(cond): aborts with file and line when `cond` is false.
// For programming errors only; never for anything a client can trigger
// (those return a Status).

#include <cstdio>
#include <cstdlib>

#define INVARIANT(cond)                                                       \
  do {                                                                        \
    if (!(cond)) {                                                            \
      std::fprintf(stderr, "INVARIANT failed: %s at %s:%d\n", #cond, __FILE__, \
                   __LINE__);                                                 \
      std::abort();                                                           \
    }                                                                         \
  } while (0)
