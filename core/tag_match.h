// Tag matching: posted receives and unexpected messages, both in arrival order, so the
// first match is always the oldest: messages from one sender never overtake each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/api/torus.hpp"
#include "protocols/wire.h"

namespace torus::core {

class RequestImpl;

inline bool tag_matches(Tag msg_tag, Tag want, Tag mask) noexcept {
  return ((msg_tag ^ want) & mask) == 0;
}

// The payload of an unexpected eager message: storage of at least the message's length whose
// bytes are left as they are (the payload is copied in at once, so zeroing it, as a vector's
// resize does, would be a second pass over it, and over fresh pages a page fault each).
class PayloadBuffer {
 public:
  // Room for n bytes; the contents are unspecified afterwards.
  void reserve_discard(size_t n) {
    if (n <= capacity_) return;
    bytes_.reset();  // the old block goes before the new one is taken
    bytes_.reset(new std::byte[n]);
    capacity_ = n;
  }
  void release() noexcept {
    bytes_.reset();
    capacity_ = 0;
  }
  std::byte* data() noexcept { return bytes_.get(); }
  size_t capacity() const noexcept { return capacity_; }

 private:
  std::unique_ptr<std::byte[]> bytes_;
  size_t capacity_ = 0;
};

// A message that arrived before its receive was posted. As a Message it is the handle that
// tag_probe_remove gives out.
struct Unexpected final : Message {
  enum class Kind : uint8_t { Eager, Rts };
  Kind kind = Kind::Eager;
  Tag tag = 0;
  uint64_t sender_uid = 0;
  uint64_t sreq_id = 0;        // sync eager: ack on match (0 = none); Rts: sender's request
  size_t total_length = 0;
  size_t received = 0;         // eager: bytes arrived so far (fragments)
  PayloadBuffer data;          // eager payload: total_length bytes, `received` of them in
  proto::RtsHdr rts{};         // Rts
  std::vector<std::byte> rkey; // Rts
  bool taken = false;          // off the queue, held by a tag_probe_remove caller
  Status error = Status::Ok;   // taken eager message whose sender failed mid-message
  Unexpected* next = nullptr;
  Unexpected* prev = nullptr;
};

template <typename T>
class IntrusiveList {
 public:
  bool empty() const noexcept { return head_ == nullptr; }
  T* front() const noexcept { return head_; }
  size_t size() const noexcept { return size_; }
  void push_back(T* n) noexcept {
    n->next = nullptr;
    n->prev = tail_;
    if (tail_) tail_->next = n; else head_ = n;
    tail_ = n;
    ++size_;
  }
  void remove(T* n) noexcept {
    if (n->prev) n->prev->next = n->next; else head_ = n->next;
    if (n->next) n->next->prev = n->prev; else tail_ = n->prev;
    n->next = n->prev = nullptr;
    --size_;
  }

 private:
  T* head_ = nullptr;
  T* tail_ = nullptr;
  size_t size_ = 0;
};

// Owns every Unexpected; recycled objects keep their payload buffer, so after warm-up an
// unexpected eager message costs no allocation. Buffers up to kKeepBytes are always kept;
// larger ones (shm's eager goes to 256 KiB, and collectives' segments arrive unexpected
// whenever the peer is a step ahead) while the free objects hold at most kKeepLargeBytes of
// them: a burst of large messages leaves no more than that behind.
class UnexpectedPool {
 public:
  static constexpr size_t kKeepBytes = 64 * 1024;
  static constexpr size_t kKeepLargeBytes = 4 * 1024 * 1024;

  Unexpected* get();
  void put(Unexpected* u) noexcept;
  // Bytes of buffers over kKeepBytes held by free objects.
  size_t large_bytes_kept() const noexcept { return large_kept_; }

 private:
  std::vector<std::unique_ptr<Unexpected>> all_;
  std::vector<Unexpected*> free_;
  size_t large_kept_ = 0;
};

// Does not own the queued messages (the pool does).
class TagMatcher {
 public:
  // Oldest posted receive matching msg_tag, removed from the queue; nullptr if none.
  RequestImpl* match_posted(Tag msg_tag) noexcept;
  void post(RequestImpl* req) noexcept;
  // Removes a still-posted receive (cancel); false when it is no longer posted.
  bool unpost(RequestImpl* req) noexcept;

  // Oldest unexpected message matching (tag, mask); `remove` takes it off the queue.
  Unexpected* match_unexpected(Tag tag, Tag mask, bool remove) noexcept;
  void add_unexpected(Unexpected* u) noexcept { unexpected_.push_back(u); }
  void remove_unexpected(Unexpected* u) noexcept { unexpected_.remove(u); }

  size_t posted_count() const noexcept { return posted_.size(); }
  size_t unexpected_count() const noexcept { return unexpected_.size(); }

 private:
  IntrusiveList<RequestImpl> posted_;
  IntrusiveList<Unexpected> unexpected_;
};

}  // namespace torus::core
