// Forwarding of one rank's stdout or stderr to mpirun's own, whole lines at a time: lines of
// different ranks never mix, and with --tag-output each carries "[1,RANK]<stdout>:".
#pragma once

#include <string>
#include <string_view>

namespace torus::launcher {

class LineForwarder final {
 public:
  // dest_fd: 1 or 2. tag: the prefix for every line ("" for none).
  LineForwarder(int dest_fd, std::string tag) : dest_(dest_fd), tag_(std::move(tag)) {}

  // Bytes read from the rank; every complete line goes out in one write.
  void feed(std::string_view data);
  // The stream ended: a last line without '\n' goes out too (with one added when tagged,
  // so the next tagged line starts on its own).
  void finish();

 private:
  void emit(std::string_view text, bool add_newline);

  // A line longer than this goes out in pieces rather than growing without bound.
  static constexpr size_t kMaxHeld = size_t{1} << 20;

  int dest_;
  std::string tag_;
  std::string held_;  // the start of a line whose '\n' has not come yet
  std::string out_;
};

}  // namespace torus::launcher
