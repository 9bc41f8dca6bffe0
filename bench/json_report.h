#pragma once
// WriteJsonReport: a benchmark's results, built as a BSON document, written
// as relaxed extended JSON (plain JSON numbers and strings) so that
// bench/run-all can gather every program's results into one file.
//
// Thread-safety: a pure function of its arguments (and the file it writes).

#include <bson/bson.h>

#include <cstdio>
#include <string>

namespace tigerdoc::bench {

// Writes `doc` to `path`; false (with a message on stderr) on failure.
inline bool WriteJsonReport(const std::string& path, const bson_t* doc) {
  size_t len = 0;
  char* json = bson_as_relaxed_extended_json(doc, &len);
  FILE* f = std::fopen(path.c_str(), "w");
  bool ok = f != nullptr && std::fwrite(json, 1, len, f) == len && std::fputc('\n', f) != EOF;
  if (f != nullptr) ok = std::fclose(f) == 0 && ok;
  bson_free(json);
  if (!ok) std::perror(("write " + path).c_str());
  return ok;
}

}  // namespace tigerdoc::bench
