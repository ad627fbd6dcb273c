# compare.sh's report: reads compare-rounds.csv ("round,group,system,size,value"; latency in
# us one way, bandwidth in MB/s with MB = 10^6 bytes) and prints the markdown report: per
# table, each system's median across rounds with the min..max, torus / the better peer, the
# machine's limit and torus / limit; then a plain summary of where torus is ahead and behind.
# Also writes, for gnuplot, OUT/plot-ID.dat (size, then one median column per system, then
# the limit) and OUT/plots.list ("ID|title|y label" per plot).
# Plain POSIX awk (Debian's default is mawk): no gawk extensions.
# Variables (-v): out mode rounds elapsed systems absent failures date host kernel ncpu
# cpu_model loadavg commit ucx_version ompi_version mpich_version cmdline with_plots (1: gnuplot
# will draw OUT/ID.png, so the report links it under its table).

NR > 1 {
  k = $2 SUBSEP $3 SUBSEP $4
  vals[k] = (k in vals) ? vals[k] " " $5 : $5
  if (!(($2 SUBSEP $4) in seen_size)) {
    seen_size[$2 SUBSEP $4] = 1
    sizes[$2] = ($2 in sizes) ? sizes[$2] " " $4 : $4
  }
}

# Sorts the numbers of a space-separated list into a[1..n]; returns n.
function sorted(list, a,    n, i, j, x) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) {
    x = a[i] + 0
    for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]
    a[j + 1] = x
  }
  return n
}
function median(g, s, z,    k, a, n) {
  k = g SUBSEP s SUBSEP z
  if (!(k in vals)) return ""
  n = sorted(vals[k], a)
  return (n % 2) ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}
function num(v) {  # about 3-4 significant digits
  if (v == "") return "n/a"
  if (v < 0.1) return sprintf("%.4f", v)
  if (v < 10) return sprintf("%.3f", v)
  if (v < 100) return sprintf("%.2f", v)
  if (v < 1000) return sprintf("%.1f", v)
  return sprintf("%.0f", v)
}
function cell(g, s, z,    k, a, n, m) {
  k = g SUBSEP s SUBSEP z
  if (!(k in vals)) return "n/a"
  n = sorted(vals[k], a)
  m = median(g, s, z)
  return n > 1 ? num(m) " (" num(a[1]) ".." num(a[n]) ")" : num(m)
}
function human(z) {
  if (z >= 1048576 && z % 1048576 == 0) return (z / 1048576) " MiB"
  if (z >= 1024 && z % 1024 == 0) return (z / 1024) " KiB"
  return z " B"
}
function name_of(s) {
  if (s == "torus") return "torus"
  if (s == "torus_tcp") return "torus (tcp)"
  if (s == "ucx") return "UCX"
  if (s == "ompi") return "Open MPI"
  if (s == "ompi_tcp") return "Open MPI (tcp)"
  if (s == "mpich") return "MPICH"
  return s
}
function present(s,    i, n, a) {
  n = split(systems, a, " ")
  for (i = 1; i <= n; i++) if (a[i] == s) return 1
  return 0
}
# The machine's limit at size z, in the table's unit, or "".
function limit(kind, z,    cl, mc) {
  if (kind == "shm_lat") {  # one cache line, plus one copy of the bytes by one core
    cl = median("limit_cacheline", "cacheline", 64)
    mc = median("limit_memcpy", "memcpy", z)
    return (cl == "" || mc == "" || mc <= 0) ? "" : cl + z / mc  # bytes / (MB/s) = us
  }
  if (kind == "shm_bw") return median("limit_memcpy", "memcpy", z)
  if (kind == "shm_bibw") { mc = median("limit_memcpy", "memcpy", z); return mc == "" ? "" : 2 * mc }
  if (kind == "tcp_lat") return median("limit_tcp_lat", "tcp", z)
  if (kind == "tcp_bw") return median("limit_tcp_bw", "tcp", z)
  return ""
}
function limit_name(kind) {
  if (kind == "shm_lat") return "cache line + memcpy"
  if (kind == "shm_bw") return "memcpy, 1 core"
  if (kind == "shm_bibw") return "2 x memcpy"
  if (kind == "tcp_lat") return "TCP socket ping-pong"
  if (kind == "tcp_bw") return "TCP socket stream"
  return ""
}
# torus / peer, and whether that is ahead: latency lower is better, bandwidth higher.
function verdict(r, kind) {
  if (kind == "lat") return r < 0.97 ? "ahead" : r > 1.03 ? "behind" : "level"
  return r > 1.03 ? "ahead" : r < 0.97 ? "behind" : "level"
}
function rfmt(r) { return sprintf(r < 0.01 ? "%.2g" : r < 0.095 ? "%.3f" : "%.2f", r) }
function ratio_range(lo, hi) {
  return lo == hi ? rfmt(lo) "x" : rfmt(lo) "x-" rfmt(hi) "x"
}

# One table: group g, torus system ts, peers (space-separated systems), kind lat|bw, limit lk.
# Appends a line to the summary and writes the plot's data.
function table(id, title, g, ts, peers, kind, lk, unit,    np, p, i, j, zs, nz, z, t, best,
               bestname, m, r, hdr, line, l, dat, cls, prev, from, lo, hi, met, tot, sum, q,
               row) {
  if (!present(ts) || !(g in sizes)) return
  np = 0
  split(peers, q, " ")
  for (i = 1; i in q; i++) if (present(q[i])) p[++np] = q[i]
  print ""
  print "### " title
  print ""
  hdr = "| size | " name_of(ts)
  line = "|---|---:"
  for (i = 1; i <= np; i++) { hdr = hdr " | " name_of(p[i]); line = line "|---:" }
  if (np) {
    hdr = hdr " | torus / " (np > 1 ? "better peer" : name_of(p[1])); line = line "|---:"
  }
  if (lk != "") { hdr = hdr " | limit: " limit_name(lk) " | torus / limit"; line = line "|---:|---:" }
  print hdr " |"
  print line "|"
  dat = out "/plot-" id ".dat"
  printf("\"size\" \"%s\"", name_of(ts)) > dat
  for (i = 1; i <= np; i++) printf(" \"%s\"", name_of(p[i])) > dat
  if (lk != "") printf(" \"limit: %s\"", limit_name(lk)) > dat
  printf("\n") > dat
  nz = sorted(sizes[g], zs)
  met = 0; tot = 0; sum = ""; prev = ""
  for (j = 1; j <= nz; j++) {
    z = zs[j]
    t = median(g, ts, z)
    row = "| " human(z) " | " cell(g, ts, z)
    best = ""
    for (i = 1; i <= np; i++) {
      row = row " | " cell(g, p[i], z)
      m = median(g, p[i], z)
      if (m != "" && (best == "" || (kind == "lat" ? m < best : m > best))) { best = m; bestname = name_of(p[i]) }
    }
    cls = ""
    if (np) {
      if (t != "" && best != "" && best > 0) {
        r = t / best
        cls = verdict(r, kind)
        row = row " | " rfmt(r) " (" cls (np > 1 ? ", vs " bestname : "") ")"
        tot++
        if (kind == "lat" ? r <= 1 : r >= 1) met++
      } else row = row " | n/a"
    }
    if (lk != "") {
      l = limit(lk, z)
      row = row " | " (l == "" ? "n/a" : num(l)) " | " (l == "" || t == "" || l <= 0 ? "n/a" : rfmt(t / l))
    }
    print row " |"
    printf("%d %s", z, t == "" ? "?" : t) > dat
    for (i = 1; i <= np; i++) { m = median(g, p[i], z); printf(" %s", m == "" ? "?" : m) > dat }
    if (lk != "") { l = limit(lk, z); printf(" %s", l == "" ? "?" : l) > dat }
    printf("\n") > dat
    # Runs of consecutive sizes with the same verdict, for the summary.
    if (cls != prev) {
      if (prev != "") sum = sum part(prev, from, zs[j - 1], lo, hi)
      prev = cls; from = z; lo = r; hi = r
    } else if (cls != "") { if (r < lo) lo = r; if (r > hi) hi = r }
  }
  if (prev != "") sum = sum part(prev, from, zs[nz], lo, hi)
  close(dat)
  print id "|" title "|" unit > (out "/plots.list")
  if (with_plots) { print ""; print "![" title "](" id ".png)" }
  if (np && tot) {
    summary[++nsum] = "- **" title "**, torus / " (np > 1 ? "the better peer" : name_of(p[1])) ": " \
      substr(sum, 3) ". Target (" (kind == "lat" ? "at most" : "at least") " 1.0x) met at " met \
      " of " tot " sizes."
  }
}
function part(cls, a, b, lo, hi) {
  return "; " cls " at " human(a) (a == b ? "" : " to " human(b)) " (" ratio_range(lo, hi) ")"
}

END {
  printf("") > (out "/plots.list")
  print "# torus against UCX, Open MPI, MPICH and the machine's limits"
  print ""
  print "- command: `" cmdline "`" (mode == "full" ? "" : " (" mode " mode: fewer sizes and iterations, a first look)")
  print "- date: " date "; host " host ", kernel " kernel ", " ncpu " CPUs: " cpu_model \
        "; load average at the end: " loadavg
  print "- torus " commit "; UCX " ucx_version " (ucx_perftest); Open MPI " ompi_version \
        "; MPICH " mpich_version " (Debian packages)"
  print "- " rounds " interleaved round" (rounds == 1 ? "" : "s") " in " elapsed " s; systems: " systems \
        (absent != "" ? "; not installed, left out: " absent : "")
  print "- each cell: median across rounds (min..max across rounds). Latency: us one way" \
        " (lower is better). Bandwidth: MB/s with MB = 10^6 bytes (higher is better)." \
        " Ratios: torus / peer of the medians; for latency below 1 is ahead, for bandwidth above 1" \
        " (level: within 3 %)."
  print "- two processes on two CPUs: servers and rank 0 on CPU 0, clients and rank 1 on CPU 1" \
        " (taskset; the MPIs' own binding off); 4-rank runs: ranks 0, 2 on CPU 0 and 1, 3 on CPU 1."
  if (failures > 0) print "- **" failures " run(s) failed**; their points are missing (see compare-logs/)."
  print ""
  print "## Where torus stands"
  print ""
  print "@SUMMARY@"
  print ""
  print "## Transport level: torus_perf against ucx_perftest"
  print ""
  print "Tagged messages between two processes. Latency: ping-pong, the median one-way time of" \
        " the iterations of a run. Bandwidth: windows of non-blocking sends, an ack each (torus_perf keeps two windows in flight), total bytes" \
        " / total time. Both tools get the same iteration and warm-up counts at each size (the" \
        " bytes of a size's run bounded, so large sizes run fewer); ucx_perftest runs the sweep as" \
        " one batch, torus_perf one server and client pair per group of sizes with the same count." \
        " Over shm UCX runs with UCX_TLS=sm; over TCP both" \
        " use only tcp (TORUS_TLS=tcp, UCX_TLS=tcp) on 127.0.0.1."
  table("shm_tag_lat", "tag latency over shared memory (us)", "shm_tag_lat", "torus", "ucx", "lat", "shm_lat", "one-way latency (us)")
  table("shm_tag_bw", "tag bandwidth over shared memory (MB/s)", "shm_tag_bw", "torus", "ucx", "bw", "shm_bw", "bandwidth (MB/s, 1 MB = 10^6 B)")
  table("tcp_tag_lat", "tag latency over TCP loopback (us)", "tcp_tag_lat", "torus", "ucx", "lat", "tcp_lat", "one-way latency (us)")
  table("tcp_tag_bw", "tag bandwidth over TCP loopback (MB/s)", "tcp_tag_bw", "torus", "ucx", "bw", "tcp_bw", "bandwidth (MB/s, 1 MB = 10^6 B)")
  print ""
  print "## MPI level: contrib/bench/mpi, 2 ranks"
  print ""
  print "One source per benchmark, built by each MPI's own wrapper (torus's mpicc, mpicc.openmpi," \
        " mpicc.mpich) and started by its own launcher (torus's mpirun, mpirun.openmpi," \
        " mpiexec.hydra). latency: blocking ping-pong, total time / 2 / iterations. bw: windows of" \
        " 64 MPI_Isend (at most 64 MiB per window) and a 4-byte ack. bibw: both ranks send a window" \
        " at once, bytes of both directions. allreduce: MPI_SUM on MPI_FLOAT, time per call averaged" \
        " over the ranks. Every size is timed for a fixed time after a warm-up and its data checked" \
        " once. Open MPI: its default (shared memory); Open MPI (tcp): `--mca pml ob1 --mca btl" \
        " self,tcp --mca btl_tcp_if_include lo`; torus (tcp): TORUS_TLS=tcp. MPICH: Debian's" \
        " (ch4:ucx)."
  table("mpi_latency", "MPI latency, shared memory (us)", "mpi_latency", "torus", "ompi mpich", "lat", "shm_lat", "one-way latency (us)")
  table("mpi_bw", "MPI bandwidth, shared memory (MB/s)", "mpi_bw", "torus", "ompi mpich", "bw", "shm_bw", "bandwidth (MB/s, 1 MB = 10^6 B)")
  table("mpi_bibw", "MPI bidirectional bandwidth, shared memory (MB/s)", "mpi_bibw", "torus", "ompi mpich", "bw", "shm_bibw", "bandwidth, both directions (MB/s, 1 MB = 10^6 B)")
  table("mpi_allreduce", "MPI allreduce, 2 ranks (us per call)", "mpi_allreduce", "torus", "ompi mpich", "lat", "", "time per call (us)")
  table("mpi_tcp_latency", "MPI latency over TCP loopback (us)", "mpi_latency", "torus_tcp", "ompi_tcp", "lat", "tcp_lat", "one-way latency (us)")
  table("mpi_tcp_bw", "MPI bandwidth over TCP loopback (MB/s)", "mpi_bw", "torus_tcp", "ompi_tcp", "bw", "tcp_bw", "bandwidth (MB/s, 1 MB = 10^6 B)")
  table("mpi_tcp_bibw", "MPI bidirectional bandwidth over TCP loopback (MB/s)", "mpi_bibw", "torus_tcp", "ompi_tcp", "bw", "", "bandwidth, both directions (MB/s, 1 MB = 10^6 B)")
  table("mpi_tcp_allreduce", "MPI allreduce over TCP loopback, 2 ranks (us per call)", "mpi_allreduce", "torus_tcp", "ompi_tcp", "lat", "", "time per call (us)")
  print ""
  print "## MPI allreduce, 4 ranks on 2 cores"
  print ""
  print "Twice as many ranks as cores (two per CPU): a library whose waiting ranks never yield" \
        " the CPU collapses here. Target: at most 1.0x Open MPI's time."
  table("mpi4_allreduce", "MPI allreduce, 4 ranks on 2 cores (us per call)", "mpi4_allreduce", "torus", "ompi mpich", "lat", "", "time per call (us)")
  print ""
  print "## MPI one-sided communication, 2 ranks"
  print ""
  print "mpi_put.c: rank 0 in an MPI_Win_lock_all epoch on a window made by MPI_Win_allocate, per" \
        " iteration one MPI_Put of SIZE bytes to rank 1 then MPI_Win_flush; built with" \
        " -DBENCH_ACCUMULATE it is mpi_acc: MPI_Accumulate(MPI_SUM) of SIZE / 8 longs instead." \
        " Rank 1 waits in the library meanwhile. Shared memory only."
  table("mpi_put", "MPI put + flush, shared memory (us per put)", "mpi_put", "torus", "ompi mpich", "lat", "", "time per put (us)")
  table("mpi_acc", "MPI accumulate + flush, shared memory (us per accumulate)", "mpi_acc", "torus", "ompi mpich", "lat", "", "time per accumulate (us)")
  print ""
  print "## The machine's limits (same rounds)"
  print ""
  print "- cache line handed between the two CPUs, one way (floor_cacheline): " \
        cell("limit_cacheline", "cacheline", 64) " us"
  print "- memcpy by one core (floor_memcpy), source and destination of SIZE bytes: the least a" \
        " message over shared memory costs is one copy. Shared-memory latency limit = cache line +" \
        " SIZE / memcpy rate; bandwidth limit = memcpy rate (bidirectional: twice that, two cores)."
  print "- TCP over 127.0.0.1 (floor_tcp): a plain socket with TCP_NODELAY, ping-pong with both" \
        " ends spinning on non-blocking recv (as torus and UCX poll), and a stream of writes" \
        " acknowledged every 32 messages."
  print ""
  print "| size | memcpy, 1 core (MB/s) | TCP ping-pong (us one way) | TCP stream (MB/s) |"
  print "|---|---:|---:|---:|"
  nz = sorted(sizes["limit_memcpy"] " " sizes["limit_tcp_lat"], zs)
  last = ""
  for (j = 1; j <= nz; j++) {
    if (zs[j] == last) continue
    last = zs[j]
    print "| " human(zs[j]) " | " cell("limit_memcpy", "memcpy", zs[j]) " | " \
          cell("limit_tcp_lat", "tcp", zs[j]) " | " cell("limit_tcp_bw", "tcp", zs[j]) " |"
  }
  print ""
  print "Per-round values: compare-rounds.csv; every process's output: compare-logs/."
  close(out "/plots.list")
  # The summary goes first in the report but is known last: the shell puts it in place.
  for (i = 1; i <= nsum; i++) print summary[i] > (out "/summary.md")
  close(out "/summary.md")
}
