// Flattening constructors into byte blocks, element runs and bounds (the MPI standard's lb/ub
// rules: a piece of copies of `old` spans [disp + old.lb, disp + old.ub) widened by the copies;
// true bounds are those of the data bytes alone).
#include "mpi_shim/lib/datatype/layout.h"

#include <algorithm>
#include <climits>

namespace torus::mpi {

void LayoutBuilder::add(const TypeLayout& old, MPI_Aint disp, size_t copies) {
  if (copies == 0) return;
  const bool dense = old.blocks.size() == 1 && old.blocks[0].length == old.extent;
  if (copies > size_t(INT_MAX) && ((!dense && !old.blocks.empty()) || old.runs.size() > 1))
    throw LayoutTooLarge{};
  const MPI_Aint span = static_cast<MPI_Aint>(copies - 1) * old.extent;
  const MPI_Aint lb = disp + old.lb + std::min<MPI_Aint>(0, span);
  const MPI_Aint ub = disp + old.lb + old.extent + std::max<MPI_Aint>(0, span);
  if (!any_piece_) {
    out_.lb = lb;
    ub_ = ub;
    any_piece_ = true;
  } else {
    out_.lb = std::min(out_.lb, lb);
    ub_ = std::max(ub_, ub);
  }
  out_.align = std::max(out_.align, old.align);
  out_.size += copies * old.size;
  out_.elements += copies * old.elements;

  if (old.size == 0) {
    if (empty_basic_ == MPI_DATATYPE_NULL) empty_basic_ = old.basic;
  } else if (old.basic == MPI_DATATYPE_NULL) {
    mixed_ = true;
  } else if (!basic_set_) {
    out_.basic = old.basic;
    basic_set_ = true;
  } else if (out_.basic != old.basic) {
    mixed_ = true;
  }
  out_.basic_count += copies * old.basic_count;

  // Copies of a single dense block touch each other: one block, whatever the count.
  if (dense) {
    add_block(disp + old.blocks[0].offset, old.blocks[0].length * static_cast<MPI_Aint>(copies));
  } else if (!old.blocks.empty()) {
    for (size_t c = 0; c < copies; ++c) {
      const MPI_Aint base = disp + static_cast<MPI_Aint>(c) * old.extent;
      for (const TypeBlock& b : old.blocks) add_block(base + b.offset, b.length);
    }
  }
  if (old.runs.size() == 1) {
    add_run(old.runs[0].type, old.runs[0].count * copies);
  } else {
    for (size_t c = 0; c < copies; ++c)
      for (const TypeRun& r : old.runs) add_run(r.type, r.count);
  }
}

void LayoutBuilder::add_block(MPI_Aint offset, MPI_Aint length) {
  if (length == 0) return;
  if (!any_block_) {
    out_.true_lb = offset;
    true_ub_ = offset + length;
    any_block_ = true;
  } else {
    out_.true_lb = std::min(out_.true_lb, offset);
    true_ub_ = std::max(true_ub_, offset + length);
  }
  if (!out_.blocks.empty()) {
    TypeBlock& last = out_.blocks.back();
    if (last.offset + last.length == offset) {
      last.length += length;
      return;
    }
  }
  out_.blocks.push_back({offset, length});
}

void LayoutBuilder::add_run(MPI_Datatype type, size_t count) {
  if (count == 0) return;
  if (!out_.runs.empty() && out_.runs.back().type == type) {
    out_.runs.back().count += count;
    return;
  }
  out_.runs.push_back({type, count});
}

TypeLayout LayoutBuilder::finish(bool struct_padding) {
  TypeLayout l = std::move(out_);
  l.extent = any_piece_ ? ub_ - l.lb : 0;
  if (!any_piece_) l.lb = 0;
  if (struct_padding && l.extent > 0 && l.align > 1) {
    const MPI_Aint epsilon = l.extent % l.align;
    if (epsilon != 0) l.extent += l.align - epsilon;
  }
  l.true_extent = any_block_ ? true_ub_ - l.true_lb : 0;
  if (!any_block_) l.true_lb = 0;
  if (mixed_) {
    l.basic = MPI_DATATYPE_NULL;
    l.basic_count = 0;
  } else if (!basic_set_) {
    l.basic = empty_basic_;
    l.basic_count = 0;
  }
  l.contiguous = layout_is_contiguous(l);
  return l;
}

TypeLayout layout_resized(const TypeLayout& old, MPI_Aint lb, MPI_Aint extent) {
  TypeLayout l = old;
  l.lb = lb;
  l.extent = extent;
  l.contiguous = layout_is_contiguous(l);
  return l;
}

bool layout_is_contiguous(const TypeLayout& l) noexcept {
  if (l.blocks.empty()) return true;
  return l.blocks.size() == 1 && l.extent == static_cast<MPI_Aint>(l.size);
}

}  // namespace torus::mpi
