#!/usr/bin/env bash
# Client capacity: CPU seconds of the tokenmeter client per million streamed tokens, the highest
# aggregate token rate it ingests, connections opened and resident memory, against a zero-delay
# `tokenmeter sim serve` in its own process. Client pinned to CPU 0, server to CPU 1, so they do
# not share a core.
#
#   bench/client-capacity.sh                 # 64 and 1000 streams x server batch 1 and 32, twice each
#   CONCURRENCY="64" BATCHES=1 REPEATS=1 WINDOW=20 bench/client-capacity.sh
#
# BATCHES: the zero-delay server's tokens per flush (--zero-delay-batch). 1 = one write, hence about
# one client read, per token: the worst case, and the case that the figures behind the design
# (docs/ARCHITECTURE.md) describe. 32 = the simulator's default, several tokens per read.
#
# CPU is read from /proc/PID/stat (user and system ticks, 10 ms) of the client JVM at two instants
# inside the measurement window, so JVM start, JIT warm-up and the ramp are excluded; the token
# rate is summary.json's window output tokens/s. CPU-s per million = (CPU s / wall s) / (tokens/s) * 1e6.
. "$(dirname "$0")/lib.sh"

CONCURRENCY=${CONCURRENCY:-"64 1000"}
REPEATS=${REPEATS:-2}
BATCHES=${BATCHES:-"1 32"}
WARMUP=${WARMUP:-15}      # seconds of unmeasured load before the window (JIT, connections)
WINDOW=${WINDOW:-30}      # seconds of measurement window
OUTPUT_TOKENS=${OUTPUT_TOKENS:-2048}
PORT=${PORT:-18531}
OUT=${OUT:-results/capacity-$(date -u +%Y%m%dT%H%M%SZ)}
begin_results

# run_one C TAG WARMUP WINDOW BATCH: one bench run; prints one result line.
run_one() {
  local c=$1 tag=$2 warm=$3 win=$4 batch=$5 dir="$OUT/b$5-c$1-$2"
  mkdir -p "$dir"
  start_server "$PORT" "$dir/server.log" --zero-delay --zero-delay-batch "$batch"
  local load0; load0=$(loadavg)
  start_zero_delay_client "$PORT" "$c" "$warm" "$win" "$dir"
  local cpid=$!
  # The window opens about 1 s after start (JVM start + preflight) plus the warm-up; sample from
  # 2 s into it to 3 s before its end.
  sleep $((warm + 3))
  local t0 p0 l0 s0 t1 p1 l1 s1 rss_min=999999999 rss_max=0 r
  t0=$(now_ns); p0=$(cpu_ticks $cpid); l0=$(cpu_ticks $cpid tokenmeter-clie); s0=$(cpu_ticks "$SERVER_PID")
  for _ in $(seq 1 $((win - 5))); do
    sleep 1
    r=$(kib VmRSS $cpid); echo "$r" >>"$dir/rss_kib.txt"
    [ "$r" -lt "$rss_min" ] && rss_min=$r; [ "$r" -gt "$rss_max" ] && rss_max=$r
  done
  t1=$(now_ns); p1=$(cpu_ticks $cpid); l1=$(cpu_ticks $cpid tokenmeter-clie); s1=$(cpu_ticks "$SERVER_PID")
  local hwm; hwm=$(kib VmHWM $cpid)
  wait $cpid || { echo "bench failed: see $dir/client.log" >&2; tail -5 "$dir/client.log" >&2; }
  local load1; load1=$(loadavg)
  stop_server
  local tps conns_client sum_cpu
  tps=$(bt get "$dir/summary.json" stages.0.throughput.output_tokens_per_s)
  sum_cpu=$(bt get "$dir/summary.json" stages.0.client_health.loop_thread_cpu_fraction)
  conns_client=$(grep -c '"new_connection":true' "$dir/requests.jsonl" || true)
  local conns_server; conns_server=$(sed -n 's/.* \([0-9]*\) connections;.*/\1/p' "$dir/server.log")
  awk -v c="$c" -v tag="$tag" -v batch="$batch" -v t0="$t0" -v t1="$t1" -v p0="$p0" -v p1="$p1" -v l0="$l0" -v l1="$l1" \
      -v s0="$s0" -v s1="$s1" -v tps="$tps" -v hwm="$hwm" -v rmin="$rss_min" -v rmax="$rss_max" \
      -v cc="$conns_client" -v cs="$conns_server" -v la0="$load0" -v la1="$load1" -v sl="$sum_cpu" 'BEGIN {
    hz = 100; dt = (t1 - t0) / 1e9
    split(p0, a); split(p1, b); split(l0, la); split(l1, lb); split(s0, sa); split(s1, sb)
    u = (b[1] - a[1]) / hz / dt; s = (b[2] - a[2]) / hz / dt          # cores busy, user / system
    lu = (lb[1] - la[1]) / hz / dt; ls = (lb[2] - la[2]) / hz / dt
    sv = ((sb[1] - sa[1]) + (sb[2] - sa[2])) / hz / dt
    m = tps / 1e6
    printf "batch=%-2s c=%-5s %-4s tokens/s %9.0f | client CPU-s/Mtok %5.2f (user %4.2f sys %4.2f) = %3.0f%% of a core; loop thread %4.2f (user %4.2f sys %4.2f); server %3.0f%% of a core | RSS %5.1f-%5.1f MiB, HWM %5.1f MiB | connections client %s, server %s (incl. preflight) | load %s -> %s\n",
      batch, c, tag, tps, (u + s) / m, u / m, s / m, 100 * (u + s), (lu + ls) / m, lu / m, ls / m, 100 * sv,
      rmin / 1024, rmax / 1024, hwm / 1024, cc, cs, la0, la1
  }' | tee -a "$OUT/results.txt"
}

[ "${SKIP_BASE:-0}" = 1 ] || run_one 1 base 5 15 32
for rep in $(seq 1 "$REPEATS"); do
  for batch in $BATCHES; do
    for c in $CONCURRENCY; do
      run_one "$c" "r$rep" "$WARMUP" "$WINDOW" "$batch"
    done
  done
done
echo "results: $OUT/results.txt"
