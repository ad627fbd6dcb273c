// Space accounting inside the buffer attached with MPI_Buffer_attach: first fit over a list
// of ranges, a freed range merged with free neighbours, so a long-lived buffer does not
// fragment into pieces too small for the messages it was sized for.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace torus::mpi {

class BsendSpace {
 public:
  // Forgets every range: [0, capacity) is one free range.
  void reset(size_t capacity);
  // Takes the first free range of at least `len` bytes (len > 0); its offset, or nullopt
  // when no free range is large enough.
  std::optional<size_t> take(size_t len);
  // Gives back the range that take() returned at `offset`.
  void give_back(size_t offset);
  // Whether nothing is taken.
  bool all_free() const { return ranges_.size() <= 1 && (ranges_.empty() || !ranges_[0].used); }

 private:
  struct Range {
    size_t offset;
    size_t len;
    bool used;
  };
  std::vector<Range> ranges_;  // by offset, covering [0, capacity); no two free neighbours
};

}  // namespace torus::mpi
