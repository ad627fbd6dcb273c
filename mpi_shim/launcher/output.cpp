// Line assembly for forwarded output.
#include "mpi_shim/launcher/output.h"

#include "mpi_shim/launcher/report.h"

namespace torus::launcher {

void LineForwarder::feed(std::string_view data) {
  size_t last_nl = data.rfind('\n');
  if (last_nl == std::string_view::npos) {
    held_.append(data);
    if (held_.size() >= kMaxHeld) {
      emit(held_, !tag_.empty());
      held_.clear();
    }
    return;
  }
  // Everything up to the last newline is whole lines: the held start of the first one, then
  // the rest, in one write so that another rank's line cannot land in between.
  out_.clear();
  std::string_view complete = data.substr(0, last_nl + 1);
  if (tag_.empty()) {
    out_.append(held_);
    out_.append(complete);
  } else {
    bool first = true;
    while (!complete.empty()) {
      size_t nl = complete.find('\n');
      out_.append(tag_);
      if (first) out_.append(held_);
      first = false;
      out_.append(complete.substr(0, nl + 1));
      complete.remove_prefix(nl + 1);
    }
  }
  held_.assign(data.substr(last_nl + 1));
  write_all(dest_, out_.data(), out_.size());
}

void LineForwarder::finish() {
  if (held_.empty()) return;
  emit(held_, !tag_.empty());
  held_.clear();
}

void LineForwarder::emit(std::string_view text, bool add_newline) {
  out_.assign(tag_);
  out_.append(text);
  if (add_newline) out_.push_back('\n');
  write_all(dest_, out_.data(), out_.size());
}

}  // namespace torus::launcher
