#!/usr/bin/env bash
# Peers: the tokenmeter client against wrk (reads the HTTP response, parses no SSE) on the same
# server, alternating run by run, each client alone on CPU 0 and a fresh zero-delay
# `tokenmeter sim serve` alone on CPU 1 (CLIENT_CPUS and SERVER_CPUS choose others, bench/lib.sh). Prints each client's CPU seconds per million streamed
# tokens and the ratio tokenmeter / wrk of each pair of neighbouring runs.
#
#   bench/peers.sh                                   # 64 and 256 streams, batch 1, 3 pairs each
#   CONCURRENCY=64 REPEATS=2 WINDOW=15 bench/peers.sh
#
# Both clients send the same streamed chat request (16 prompt tokens, OUTPUT_TOKENS tokens,
# ignore_eos) over C kept-alive connections, closed loop. CPU is read from /proc/PID/stat at two
# instants (3 s after the client started its window to 2 s before its end), as in
# client-capacity.sh, so JVM start and JIT warm-up are outside it for tokenmeter. Tokens per second:
# tokenmeter's summary.json window rate; for wrk, which counts no tokens, the server's own count of
# tokens written during the run divided by the run's length (both are the server-paced steady rate;
# wrk's figure includes the last partial responses). wrk is the Debian package `wrk`, installed via
# scripts/apt-install.sh when missing. The JIT and loop columns are the part of the process's
# CPU spent in its JIT compiler threads and in tokenmeter's event loop: a JIT figure well above
# zero means the window still holds the warm-up (raise WARMUP); each pair's line also gives the ratio
# without tokenmeter's JIT threads.
. "$(dirname "$0")/lib.sh"

CONCURRENCY=${CONCURRENCY:-"64 256"}
REPEATS=${REPEATS:-3}
BATCH=${BATCH:-1}         # the server's tokens per flush: 1 = one read per token, the costly case
WARMUP=${WARMUP:-10}      # tokenmeter's unmeasured warm-up (JIT); wrk needs none but runs as long
WINDOW=${WINDOW:-20}
OUTPUT_TOKENS=${OUTPUT_TOKENS:-256} # short: tokenmeter counts the tokens of requests in its window
PORT=${PORT:-18533}
OUT=${OUT:-results/peers-$(date -u +%Y%m%dT%H%M%SZ)}

if ! command -v wrk >/dev/null 2>&1; then
  bash scripts/apt-install.sh bench/peers.sh wrk || true
  command -v wrk >/dev/null 2>&1 || { echo "bench/peers.sh: wrk is missing; install the Debian package wrk" >&2; exit 1; }
fi
[ "${SKIP_BUILD:-0}" = 1 ] || build
./tokenmeter --version >/dev/null # the launcher rebuilds its jar now if sources changed, not mid-run
mkdir -p "$OUT"
machine | tee "$OUT/machine.txt"
echo "wrk: $(wrk -v 2>&1 | head -n1)" | tee -a "$OUT/machine.txt"

cat >"$OUT/chat.lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"tokenmeter-sim","messages":[{"role":"user","content":"one two three four five six seven eight nine ten eleven twelve"}],"max_tokens":$OUTPUT_TOKENS,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}'
EOF

# thread_ticks PID PATTERN: user + system clock ticks of PID's threads whose name matches PATTERN.
thread_ticks() {
  local t total=0
  for t in /proc/"$1"/task/*; do
    if grep -qE "$2" "$t/comm" 2>/dev/null; then
      total=$((total + $(sed 's/^.*) //' "$t/stat" | awk '{print $12 + $13}')))
    fi
  done
  echo "$total"
}

# sample PID SECONDS_BEFORE SECONDS_OF: "wall_ns ticks_before ticks_after jit_before jit_after
# loop_before loop_after" of PID over an interval: the process, its JIT compiler threads and its
# event loop (tokenmeter-client; 0 for wrk).
sample() {
  local pid=$1 t0 p0 t1 p1 j0 j1 l0 l1
  sleep "$2"
  t0=$(now_ns); p0=$(cpu_ticks "$pid"); j0=$(thread_ticks "$pid" '^C[12] Compiler'); l0=$(thread_ticks "$pid" '^tokenmeter-clie')
  sleep "$3"
  t1=$(now_ns); p1=$(cpu_ticks "$pid"); j1=$(thread_ticks "$pid" '^C[12] Compiler'); l1=$(thread_ticks "$pid" '^tokenmeter-clie')
  echo "$((t1 - t0)) $p0 $p1 $j0 $j1 $l0 $l1"
}

# report CLIENT C DIR TOKENS_PER_S SAMPLE LOAD0 LOAD1: one result line; the CPU-s/Mtok on stdout's last field.
report() {
  awk -v who="$1" -v c="$2" -v tps="$4" -v s="$5" -v la0="$6" -v la1="$7" 'BEGIN {
    split(s, x); dt = x[1] / 1e9; hz = 100
    u = (x[4] - x[2]) / hz / dt; k = (x[5] - x[3]) / hz / dt
    m = tps / 1e6; jit = (x[7] - x[6]) / hz / dt; loop = (x[9] - x[8]) / hz / dt
    printf "%-10s c=%-4s tokens/s %8.0f | CPU-s/Mtok %5.2f (user %4.2f sys %4.2f; JIT %4.2f, loop %4.2f) = %3.0f%% of a core | load %s -> %s | %.3f\n",
      who, c, tps, (u + k) / m, u / m, k / m, jit / m, loop / m, 100 * (u + k), la0, la1, (u + k) / m
  }' >>"$OUT/results.txt"
  tail -n1 "$OUT/results.txt"
}

run_wrk() {
  local c=$1 dir=$2 secs=$((WARMUP + WINDOW))
  start_server "$PORT" "$dir/server.log" --zero-delay --zero-delay-batch "$BATCH"
  local load0; load0=$(loadavg)
  taskset -c "$CLIENT_CPUS" wrk -t 1 -c "$c" -d "${secs}s" --timeout 30s -s "$OUT/chat.lua" \
    "http://127.0.0.1:$PORT/v1/chat/completions" >"$dir/wrk.log" 2>&1 &
  local pid=$!
  local s; s=$(sample $pid $((WARMUP + 3)) $((WINDOW - 5)))
  wait $pid || { echo "wrk failed: see $dir/wrk.log" >&2; }
  local load1; load1=$(loadavg)
  stop_server
  local tokens; tokens=$(sed -n 's/.* requests, \([0-9]*\) tokens,.*/\1/p' "$dir/server.log")
  report wrk "$c" "$dir" "$(awk -v t="$tokens" -v d="$secs" 'BEGIN {print t / d}')" "$s" "$load0" "$load1"
}

run_tokenmeter() {
  local c=$1 dir=$2
  start_server "$PORT" "$dir/server.log" --zero-delay --zero-delay-batch "$BATCH"
  local load0; load0=$(loadavg)
  start_zero_delay_client "$PORT" "$c" "$WARMUP" "$WINDOW" "$dir"
  local pid=$!
  # The window opens about 1 s after start (JVM start, preflight) plus the warm-up.
  local s; s=$(sample $pid $((WARMUP + 3)) $((WINDOW - 5)))
  wait $pid || { echo "bench failed: see $dir/client.log" >&2; }
  local load1; load1=$(loadavg)
  stop_server
  report tokenmeter "$c" "$dir" "$(bt get "$dir/summary.json" stages.0.throughput.output_tokens_per_s)" "$s" "$load0" "$load1"
}

for c in $CONCURRENCY; do
  for rep in $(seq 1 "$REPEATS"); do
    # Alternate which client goes first, so a drift in the neighbours' load favours neither.
    if [ $((rep % 2)) = 1 ]; then order="wrk tokenmeter"; else order="tokenmeter wrk"; fi
    declare -A cost=() jit=()
    for who in $order; do
      dir="$OUT/$who-c$c-r$rep"
      mkdir -p "$dir"
      line=$("run_$who" "$c" "$dir" | tail -n1)
      echo "$line"
      cost[$who]=${line##* }
      jit[$who]=$(sed -n 's/.*; JIT \([0-9.]*\),.*/\1/p' <<<"$line")
    done
    # The second ratio leaves out tokenmeter's JIT compiler threads: what the window still pays for
    # a warm-up too short for the JIT (on one CPU it works through a backlog; docs/PERFORMANCE.md,
    # "The optimising compiler held out of the window").
    awk -v c="$c" -v r="$rep" -v t="${cost[tokenmeter]}" -v w="${cost[wrk]}" -v j="${jit[tokenmeter]:-0}" \
      'BEGIN { printf "pair c=%s run %s: tokenmeter / wrk CPU per token = %.2f (%.2f without its JIT threads)\n",
               c, r, (w > 0 ? t / w : 0), (w > 0 ? (t - j) / w : 0) }' |
      tee -a "$OUT/results.txt"
    unset cost jit
  done
done
echo "results: $OUT/results.txt"
