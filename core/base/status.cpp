// Human-readable text for Status codes.
#include "core/base/status.h"

namespace torus {

const char* status_string(Status s) noexcept {
  switch (s) {
    case Status::Ok: return "success";
    case Status::InProgress: return "operation in progress";
    case Status::NoResource: return "no resources, retry later";
    case Status::InvalidParam: return "invalid parameter";
    case Status::Unsupported: return "operation not supported";
    case Status::NoMemory: return "out of memory";
    case Status::BufferTooSmall: return "message truncated: receive buffer too small";
    case Status::NotFound: return "not found";
    case Status::Canceled: return "request canceled";
    case Status::Timeout: return "timed out";
    case Status::AccessDenied: return "remote access denied (bad key, range or rights)";
    case Status::IoError: return "input/output error";
    case Status::Unreachable: return "destination unreachable";
    case Status::ConnectionReset: return "connection reset by peer";
    case Status::ProtocolError: return "malformed message from peer";
  }
  return "unknown status";
}

}  // namespace torus
