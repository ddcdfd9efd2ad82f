#!/usr/bin/env bash
# Proxy soak: `tokenmeter proxy` (SQLite ledger) in front of `tokenmeter sim serve` at 200
# concurrent streams for a long run (default 30 min), with `tokenmeter bench` through the proxy as
# the load. Not part of CI.
#
#   bench/proxy-soak.sh                       # 30 minutes
#   bench/proxy-soak.sh --duration 5m         # a short run (s, m or h)
#   CONCURRENCY=200 INTERVAL=5 OUTPUT_TOKENS=64 SIM_ARGS="--ttft 50ms --itl 20ms" bench/proxy-soak.sh
#
# Every INTERVAL seconds it writes the proxy's RSS (VmRSS in /proc/PID/status) and its open file
# descriptors (entries of /proc/PID/fd) to samples.csv. At the end, after stopping bench and then
# the proxy (SIGTERM: the proxy commits what it queued), it checks, and exits 1 when one fails:
#   - RSS flat: over the sampled run (T seconds, from the start of bench to its exit), the largest
#     RSS of the last L seconds is at most TOLERANCE percent (default 10) above the largest of the
#     L seconds after a warm-up of W seconds, where W = min(300, T/3) and L = min(300, T/6): for 30
#     minutes, minutes 25-30 against minutes 5-10 (the warm-up holds the JIT, the heap growing to
#     its working size and the connections opening: 2 minutes on a loaded 2-core machine);
#   - open file descriptors flat: the same rule, plus FD_SLACK descriptors (default 8) for
#     connections opening and closing around a sample;
#   - the ledger holds exactly one row per request bench sent: rows whose model is the load's
#     (`tokenmeter proxy usage --by model --json`) = lines of bench's requests.jsonl (every
#     request, completed, failed or cancelled at the end).
. "$(dirname "$0")/lib.sh"

DURATION=${DURATION:-30m}
while [ $# -gt 0 ]; do
  case "$1" in
    --duration) DURATION=$2; shift 2 ;;
    --duration=*) DURATION=${1#*=}; shift ;;
    *) echo "usage: bench/proxy-soak.sh [--duration 30m]" >&2; exit 2 ;;
  esac
done
case "$DURATION" in
  *h) SECONDS_TOTAL=$((${DURATION%h} * 3600)) ;;
  *m) SECONDS_TOTAL=$((${DURATION%m} * 60)) ;;
  *s) SECONDS_TOTAL=${DURATION%s} ;;
  *) SECONDS_TOTAL=$DURATION ;;
esac
[[ "$SECONDS_TOTAL" =~ ^[0-9]+$ ]] && [ "$SECONDS_TOTAL" -ge 60 ] \
  || { echo "--duration: a whole number of s, m or h, at least 60 s (got '$DURATION')" >&2; exit 2; }

CONCURRENCY=${CONCURRENCY:-200}
INTERVAL=${INTERVAL:-5}
OUTPUT_TOKENS=${OUTPUT_TOKENS:-64}
SIM_ARGS=${SIM_ARGS:-"--ttft 50ms --itl 20ms"}
TOLERANCE=${TOLERANCE:-10}
FD_SLACK=${FD_SLACK:-8}
WARMUP=10
PORT=${PORT:-18551}
PROXY_PORT=${PROXY_PORT:-18552}
OUT=${OUT:-results/proxy-soak-$(date -u +%Y%m%dT%H%M%SZ)}
MODEL=tokenmeter-sim

[ "${SKIP_BUILD:-0}" = 1 ] || build
./tokenmeter --help >/dev/null # the launcher rebuilds its jar when sources changed: before the clock starts
OUT=$(mkdir -p "$OUT" && cd "$OUT" && pwd)
machine | tee "$OUT/machine.txt"
echo "soak: $CONCURRENCY streams for ${SECONDS_TOTAL}s, sim serve $SIM_ARGS, $OUTPUT_TOKENS output tokens," \
  "a sample every ${INTERVAL}s" | tee -a "$OUT/machine.txt"

PROXY_PID=""
BENCH_PID=""
stop_all() { stop_pid BENCH_PID; stop_pid PROXY_PID; stop_server; }
trap stop_all EXIT

# shellcheck disable=SC2086 # SIM_ARGS is a list of arguments
start_server "$PORT" "$OUT/server.log" $SIM_ARGS
taskset -c "$SERVER_CPUS" ./tokenmeter proxy --listen "127.0.0.1:$PROXY_PORT" --upstream "http://127.0.0.1:$PORT" \
  --ledger "$OUT/ledger.db" 2>"$OUT/proxy.log" &
PROXY_PID=$!
await_port "$PROXY_PORT" proxy "$OUT/proxy.log"

# One stage: WARMUP s of warm-up, then the rest of the run as its window.
taskset -c "$CLIENT_CPUS" ./tokenmeter bench --url "http://127.0.0.1:$PROXY_PORT" --model "$MODEL" \
  --concurrency "$CONCURRENCY" --warmup "${WARMUP}s" --duration "$((SECONDS_TOTAL - WARMUP))s" --cooldown 0s \
  --input-tokens 16 --output-tokens "$OUTPUT_TOKENS" --extra-body '{"ignore_eos":true}' -q --out "$OUT/bench" \
  >"$OUT/bench.log" 2>&1 &
BENCH_PID=$!

echo "t_s,rss_kib,fds" >"$OUT/samples.csv"
t0=$(now_ns)
while kill -0 "$BENCH_PID" 2>/dev/null; do
  t=$((($(now_ns) - t0) / 1000000000))
  rss=$(kib VmRSS "$PROXY_PID") || break
  fds=$(find /proc/"$PROXY_PID"/fd -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
  echo "$t,$rss,$fds" >>"$OUT/samples.csv"
  sleep "$INTERVAL"
done
bench_rc=0
wait "$BENCH_PID" || bench_rc=$?
BENCH_PID=""
[ "$bench_rc" = 0 ] || { echo "bench exited $bench_rc: see $OUT/bench.log" >&2; tail -5 "$OUT/bench.log" >&2; }
stop_pid PROXY_PID # SIGTERM: the proxy drains its ledger queue, then says what it wrote
stop_server
grep "stopped;" "$OUT/proxy.log" | tee -a "$OUT/results.txt" || true

./tokenmeter proxy usage --ledger "$OUT/ledger.db" --since 2000-01-01 --by model --json >"$OUT/usage.json"
rows=$(bt get "$OUT/usage.json" rows.0.requests)
[ "$(bt get "$OUT/usage.json" rows.0.key)" = "$MODEL" ] || rows=$(bt get "$OUT/usage.json" rows.1.requests)
sent=$(wc -l <"$OUT/bench/requests.jsonl")

awk -F, -v tol="$TOLERANCE" -v slack="$FD_SLACK" -v rows="$rows" -v sent="$sent" -v brc="$bench_rc" 'NR > 1 {
  t[n] = $1; rss[n] = $2; fd[n] = $3; n++
} END {
  total = t[n - 1] # T: the run as sampled, from the start of bench to its exit
  warm = total / 3 < 300 ? total / 3 : 300
  span = total / 6 < 300 ? total / 6 : 300
  for (i = 0; i < n; i++) {
    if (t[i] >= warm && t[i] < warm + span) { if (rss[i] > rss_ref) rss_ref = rss[i]; if (fd[i] > fd_ref) fd_ref = fd[i]; nref++ }
    if (t[i] >= total - span) { if (rss[i] > rss_end) rss_end = rss[i]; if (fd[i] > fd_end) fd_end = fd[i]; nend++ }
    if (rss[i] > rss_max) rss_max = rss[i]
  }
  rss_ok = nref > 0 && nend > 0 && rss_end <= rss_ref * (1 + tol / 100)
  fd_ok = nref > 0 && nend > 0 && fd_end <= fd_ref * (1 + tol / 100) + slack
  rows_ok = rows == sent && sent > 0
  printf "samples: %d over %d s; after warm-up [%d, %d) s: %d, last [%d, %d] s: %d\n",
    n, total, warm, warm + span, nref, total - span, total, nend
  printf "RSS: max %.1f MiB after warm-up, %.1f MiB last (%+.1f%%; limit +%d%%), %.1f MiB overall: %s\n",
    rss_ref / 1024, rss_end / 1024, (rss_ref > 0 ? 100 * (rss_end / rss_ref - 1) : 0), tol, rss_max / 1024, rss_ok ? "flat" : "GROWING"
  printf "open FDs: max %d after warm-up, %d last (limit %d): %s\n",
    fd_ref, fd_end, fd_ref * (1 + tol / 100) + slack, fd_ok ? "flat" : "GROWING"
  printf "ledger: %d rows for %d requests bench sent: %s\n", rows, sent, rows_ok ? "one row each" : "MISMATCH"
  if (brc != 0) print "bench failed (exit " brc ")"
  exit (rss_ok && fd_ok && rows_ok && brc == 0) ? 0 : 1
}' "$OUT/samples.csv" | tee -a "$OUT/results.txt"
verdict=${PIPESTATUS[0]}
echo "results in $OUT"
exit "$verdict"
