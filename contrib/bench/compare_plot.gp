# compare.sh's plots: one PNG per table of the report, from compare_report.awk's data file
# (a header of quoted names, then "size median median ... [limit]", '?' where a point is
# missing). Log-log: sizes span 1 B to 16 MiB and values several decades. The limit, the
# last column when its name starts with "limit", is a dashed black line.
# Variables (gnuplot -e): datafile, outfile, plottitle, ylab.
set terminal pngcairo size 900,600 enhanced font "DejaVu Sans,11"
set output outfile
set datafile missing "?"
set key autotitle columnhead
set key top left box opaque
set title plottitle
set xlabel "message size (bytes)"
set ylabel ylab
set logscale xy 2
set logscale y 10
# Every label carries its unit: "4" after "1 KiB" read as 4 bytes.
set xtics ("1 B" 1, "4 B" 4, "16 B" 16, "64 B" 64, "256 B" 256, "1 KiB" 1024, "4 KiB" 4096, \
           "16 KiB" 16384, "64 KiB" 65536, "256 KiB" 262144, "1 MiB" 1048576, \
           "4 MiB" 4194304, "16 MiB" 16777216)
set format y "%g"
set grid xtics ytics mytics lw 0.5 lc rgb "#dddddd"
stats datafile using 1 nooutput
ncols = STATS_columns
set xrange [STATS_min / 1.4 : STATS_max * 1.4]
# The header's last name tells whether the last column is a limit.
last = system(sprintf("head -1 '%s' | awk -F'\"' '{print $(NF-1)}'", datafile))
has_limit = strstrt(last, "limit") == 1
nsys = has_limit ? ncols - 1 : ncols
if (has_limit) {
  plot for [i=2:nsys] datafile using 1:i with linespoints lw 2 pt (i + 4) ps 1.1, \
       datafile using 1:ncols with lines dt 2 lw 2 lc rgb "black"
} else {
  plot for [i=2:nsys] datafile using 1:i with linespoints lw 2 pt (i + 4) ps 1.1
}
