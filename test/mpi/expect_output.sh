#!/bin/sh
# expect_output.sh STATUS TEXT COMMAND...: passes when COMMAND exits with STATUS (or, for
# "nonzero", with any failure) and its output, stdout and stderr together, contains TEXT.
want=$1
text=$2
shift 2
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$want" = nonzero ]; then
  if [ "$got" -eq 0 ]; then
    echo "expect_output: '$*' succeeded, expected a failure" >&2
    exit 1
  fi
elif [ "$got" -ne "$want" ]; then
  echo "expect_output: '$*' exited $got, expected $want" >&2
  exit 1
fi
case $out in
  *"$text"*) ;;
  *)
    echo "expect_output: the output lacks '$text'" >&2
    exit 1
    ;;
esac
echo "exit status $got and '$text' as expected"
