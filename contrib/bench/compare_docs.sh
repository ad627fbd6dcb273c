#!/usr/bin/env bash
# compare.sh --update-docs: puts a run's report into docs/performance.md, between the lines
# "<!-- compare.sh: begin -->" and "<!-- compare.sh: end -->" (everything between them is
# replaced; the rest of the file is left alone), and its plots into docs/perf/, with the
# report's image links pointing there. The report already names the command, the machine,
# the date and the commit.
# usage: compare_docs.sh RESULTS_DIR DOC PLOT_DIR
set -euo pipefail
out=${1:?results folder}
doc=${2:?the markdown file}
plots=${3:?the folder for the plots}
begin="<!-- compare.sh: begin -->"
end="<!-- compare.sh: end -->"
[[ -f $out/compare.md ]] || { echo "compare_docs.sh: no $out/compare.md" >&2; exit 1; }
grep -qxF "$begin" "$doc" && grep -qxF "$end" "$doc" ||
  { echo "compare_docs.sh: $doc has no '$begin' / '$end' lines" >&2; exit 1; }
mkdir -p "$plots"
rel=$(realpath --relative-to="$(dirname "$doc")" "$plots")
while IFS='|' read -r name _; do
  [[ -f $out/$name.png ]] && cp "$out/$name.png" "$plots/$name.png"
done <"$out/plots.list"
tmp=$(mktemp "$doc.XXXXXX")
awk -v b="$begin" -v e="$end" -v report="$out/compare.md" -v rel="$rel" '
  $0 == b {
    print
    while ((getline l < report) > 0) {
      # Image links name the PNG beside the report; in the docs they live in the plot folder.
      if (l ~ /^!\[.*\]\([^\/)]*\.png\)$/) sub(/\]\(/, "](" rel "/", l)
      print l
    }
    skip = 1
    next
  }
  $0 == e { skip = 0 }
  !skip' "$doc" >"$tmp"
mv "$tmp" "$doc"
echo "compare_docs.sh: $doc updated, plots in $plots" >&2
