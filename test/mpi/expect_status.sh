#!/bin/sh
# expect_status.sh CODE COMMAND...: passes when COMMAND exits with exactly CODE.
want=$1
shift
"$@"
got=$?
if [ "$got" -ne "$want" ]; then
  echo "expect_status: '$*' exited $got, expected $want" >&2
  exit 1
fi
echo "exit status $got as expected"
