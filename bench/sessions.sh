#!/usr/bin/env bash
# Sessions against single turns (issue 36, "Performance"): does building each turn's prompt from a
# growing history cost the client more than sending prepared prompts? Two bench runs at the same
# concurrency against `tokenmeter sim serve --ttft 50ms --itl 20ms --ground-truth` (its own process
# on SERVER_CPUS): `--turns 30` with 1,000-token messages and 64-token answers (contexts to ~32k
# tokens), and single-turn prompts of SINGLE_INPUT tokens (default 16,000: about the sessions' mean
# prompt, so both send request bodies of the same size and the difference is the session machinery).
# For each: the client's CPU seconds per million output tokens, read from /proc inside the window
# (as bench/client-capacity.sh), and the client's own TTFT error against the server's ground truth
# (BenchTools fidelity, as bench/timing-fidelity.sh). The issue's bar: sessions within 10% of the
# single-turn run on both.
#
#   bench/sessions.sh                                  # c=1000, 30 turns, twice each
#   CONCURRENCY=100 TURNS=10 REPEATS=1 WINDOW=30 bench/sessions.sh
#
# Watch the server's CPU in the result lines: sim serve counts every prompt's tokens, and 1,000
# 30k-token contexts can make it, not the client, the bottleneck on a small machine; the comparison
# only holds while the server keeps up (its emission lateness is printed with the fidelity figures).
. "$(dirname "$0")/lib.sh"

CONCURRENCY=${CONCURRENCY:-1000}
TURNS=${TURNS:-30}
MESSAGE_TOKENS=${MESSAGE_TOKENS:-1000}
OUTPUT_TOKENS=${OUTPUT_TOKENS:-64}
SINGLE_INPUT=${SINGLE_INPUT:-16000}
REPEATS=${REPEATS:-2}
WARMUP=${WARMUP:-20}
WINDOW=${WINDOW:-60}
PORT=${PORT:-18533}
OUT=${OUT:-results/sessions-$(date -u +%Y%m%dT%H%M%SZ)}
begin_results

# run_one MODE REP: MODE "sessions" or "single"; prints one result line and the fidelity figures.
run_one() {
  local mode=$1 rep=$2 dir="$OUT/$1-c$CONCURRENCY-r$2"
  mkdir -p "$dir"
  start_server "$PORT" "$dir/server.log" --ttft 50ms --itl 20ms --ground-truth "$dir/ground-truth.jsonl"
  local workload
  if [ "$mode" = sessions ]; then
    workload="--turns $TURNS --input-tokens $MESSAGE_TOKENS"
  else
    workload="--input-tokens $SINGLE_INPUT"
  fi
  # shellcheck disable=SC2086 # workload and CLIENT_ARGS are lists of arguments
  taskset -c "$CLIENT_CPUS" bench/client.sh bench --url "http://127.0.0.1:$PORT" --concurrency "$CONCURRENCY" \
    --event-loops "$EVENT_LOOPS" --warmup "${WARMUP}s" --duration "${WINDOW}s" --cooldown 0s $workload \
    --output-tokens "$OUTPUT_TOKENS" --extra-body '{"ignore_eos":true}' --raw-times -q --out "$dir" ${CLIENT_ARGS:-} \
    >"$dir/client.log" 2>&1 &
  local cpid=$!
  sleep $((WARMUP + 3))
  local t0 p0 s0 t1 p1 s1
  t0=$(now_ns); p0=$(cpu_ticks $cpid); s0=$(cpu_ticks "$SERVER_PID")
  sleep $((WINDOW - 5))
  t1=$(now_ns); p1=$(cpu_ticks $cpid); s1=$(cpu_ticks "$SERVER_PID")
  wait $cpid || { echo "bench failed: see $dir/client.log" >&2; tail -5 "$dir/client.log" >&2; }
  stop_server # flushes the ground truth
  local tps prompt
  tps=$(bt get "$dir/summary.json" stages.0.throughput.output_tokens_per_s)
  prompt=$(bt get "$dir/summary.json" stages.0.metrics.input_tokens.mean)
  {
    awk -v mode="$mode" -v rep="$rep" -v c="$CONCURRENCY" -v t0="$t0" -v t1="$t1" -v p0="$p0" -v p1="$p1" \
        -v s0="$s0" -v s1="$s1" -v tps="$tps" -v prompt="$prompt" 'BEGIN {
      hz = 100; dt = (t1 - t0) / 1e9
      split(p0, a); split(p1, b); split(s0, sa); split(s1, sb)
      cpu = ((b[1] - a[1]) + (b[2] - a[2])) / hz / dt
      sv = ((sb[1] - sa[1]) + (sb[2] - sa[2])) / hz / dt
      printf "%-8s r%s c=%s | output tokens/s %8.0f | mean prompt %7.0f tokens | client CPU-s/Mtok %6.2f (%3.0f%% of a core) | server %3.0f%% of a core\n",
        mode, rep, c, tps, prompt, cpu / (tps / 1e6), 100 * cpu, 100 * sv
    }'
    echo "   $(grep -o 'emission lateness.*' "$dir/server.log")"
    bt fidelity "$dir/requests.jsonl" "$dir/ground-truth.jsonl" "$dir/summary.json"
    if [ "$mode" = sessions ]; then echo "   $(bt get "$dir/summary.json" stages.0.sessions.in_words)"; fi
  } | tee -a "$OUT/results.txt"
}

for rep in $(seq 1 "$REPEATS"); do
  run_one single "$rep"
  run_one sessions "$rep"
done
echo "results: $OUT/results.txt"
