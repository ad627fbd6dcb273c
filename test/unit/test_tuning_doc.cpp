// docs/tuning.md must be exactly what the variable table generates, so the documentation
// operators read never drifts from the variables the code declares.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/base/config.h"

namespace {

const std::string kCommand = "`build/bin/torus_info --tuning-md > docs/tuning.md`";
const std::string kRegenerate =
    "docs/tuning.md is out of date with core/base/config_vars.cpp; regenerate it with " + kCommand;

// The first line where the two texts differ, so the failure points at the stale row.
std::string first_difference(const std::string& file, const std::string& generated) {
  std::istringstream a(file), b(generated);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "the files differ only in their final newline";
    if (!more_a) la = "<end of file>";
    if (!more_b) lb = "<end of generated text>";
    if (la != lb || !more_a || !more_b)
      return "line " + std::to_string(line) + ":\n  docs/tuning.md: " + la +
             "\n  generated:      " + lb;
  }
}

}  // namespace

TEST_CASE("docs/tuning.md matches the variable table") {
  const std::string path = TORUS_SOURCE_DIR "/docs/tuning.md";
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot read " << path << "; generate it with " << kCommand);
  std::ostringstream text;
  text << in.rdbuf();
  const std::string file = text.str();
  const std::string generated = torus::config::tuning_markdown();
  const bool same = file == generated;
  CHECK_MESSAGE(same, kRegenerate << "\nfirst difference at " << first_difference(file, generated));
}
