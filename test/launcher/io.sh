#!/bin/sh
# Output and input forwarding: --tag-output prefixes, stdin to rank 0 only, partial last
# lines, and line integrity (two ranks printing many long lines at once: every line intact).
# usage: io.sh MPIRUN PMI_PROBE
MPIRUN=$1; probe=$2
. "$(dirname "$0")/lib.sh"

run_mpirun -n 2 --tag-output sh -c 'echo "hi from $PMI_RANK"; echo "oops $PMI_RANK" >&2'
expect_rc 0
expect_msg '^\[1,0\]<stdout>:hi from 0$'
expect_msg '^\[1,1\]<stdout>:hi from 1$'
expect_msg '^\[1,0\]<stderr>:oops 0$'
expect_msg '^\[1,1\]<stderr>:oops 1$'

# stdin reaches rank 0, and only rank 0 (the others read /dev/null: EOF at once).
echo "+ printf 'alpha\nbeta\n' | mpirun -n 2 ..."
printf 'alpha\nbeta\n' | "$MPIRUN" --env LAUNCHER_TEST_MARK="$mark" -n 2 sh -c \
  'n=0; while read -r l; do echo "r$PMI_RANK:$l"; n=$((n+1)); done; echo "r$PMI_RANK:lines=$n"' \
  >"$tmp/out" 2>&1
rc=$?
sed 's/^/  | /' "$tmp/out"
expect_rc 0
expect_msg '^r0:alpha$'
expect_msg '^r0:beta$'
expect_msg '^r0:lines=2$'
expect_msg '^r1:lines=0$'

# A last line without a newline still comes out; tagged, it ends with one.
"$MPIRUN" -n 1 printf 'no newline' > "$tmp/raw" 2>&1
[ "$(cat "$tmp/raw")" = "no newline" ] && [ "$(wc -c < "$tmp/raw")" -eq 10 ] ||
  fail "untagged partial line: '$(cat "$tmp/raw")'"
"$MPIRUN" -n 1 --tag-output printf 'no newline' > "$tmp/raw" 2>&1
[ "$(cat "$tmp/raw")" = "[1,0]<stdout>:no newline" ] || fail "tagged partial line: '$(cat "$tmp/raw")'"

# Line integrity: lines longer than a pipe's atomic write (4 KiB), from two ranks at once.
lines=400; width=20000
for tag in "" --tag-output; do
  echo "+ mpirun -n 2 $tag pmi_probe --lines $lines --width $width"
  "$MPIRUN" --env LAUNCHER_TEST_MARK="$mark" -n 2 $tag "$probe" --lines $lines --width $width \
    > "$tmp/lines" 2>&1
  rc=$?
  expect_rc 0
  prefix=""
  [ -n "$tag" ] && prefix='\[1,[01]\]<stdout>:'
  bad=$(grep -v 'pmi ok' "$tmp/lines" | sed "s/^$prefix//" | awk -v w=$width '
    { if (length($0) != w || $0 !~ /^rank [01] line [0-9]+ [a-z]+$/) bad++; else seen[$2 " " $4]++ }
    END { n = 0; for (k in seen) n++; print bad + 0, n }')
  [ "$bad" = "0 $((2 * lines))" ] || fail "broken or missing lines (broken, distinct): $bad"
  echo "  $((2 * lines)) lines of $width bytes intact"
done

assert_no_leftovers
echo "ok: io"
