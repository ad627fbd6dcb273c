#!/bin/sh
# Runs the memory tests that use userfaultfd as user nobody; 77 (skipped) when not root.
bin=$1
if [ "$(id -u)" != 0 ]; then
  echo "skipped: memory_unprivileged: not root (the memory test already ran unprivileged)"
  exit 77
fi
if ! command -v setpriv >/dev/null 2>&1; then
  echo "skipped: memory_unprivileged: setpriv not found"
  exit 77
fi
TORUS_TEST_EXPECT_UNPRIVILEGED=1 exec setpriv --reuid=65534 --regid=65534 --clear-groups \
  "$bin" --test-case='invalidation:*,monitor:*,fork:*'
