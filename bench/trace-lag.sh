#!/usr/bin/env bash
# Schedule lag of a trace replay (issue 37): does `bench --trace` send each record at its timestamp
# when the trace is busy? Replays the busiest minute of an hour-long trace against `tokenmeter sim
# serve --ttft 50ms --itl 10ms` (its own process on SERVER_CPUS) and prints the stage's send lag
# (send time minus the record's scheduled time: summary.json stages.0.client_health.send_lag_ms)
# at p50, p99 and max. The issue's bar: p99 <= 5 ms on a 2-core machine.
#
#   TRACE=mooncake_conversation_trace.jsonl bench/trace-lag.sh   # a published trace (docs/TRACES.md)
#   bench/trace-lag.sh                                           # a generated Mooncake-format hour
#
# Without TRACE it writes a Mooncake-format hour: 12,000 requests (Mooncake's conversation trace
# holds about that many), Poisson arrivals whose rate swings by 3x over the hour, prompts
# lognormal around 8k tokens capped at 120k, each opening with one of 50 shared 4-block prefixes.
# Prompts are sized with o200k_base (TOKENIZER) and built ahead of the schedule by a background
# thread. The client warms up before the trace's clock starts (bench's --trace-warmup, default 5s);
# CLIENT_ARGS="--trace-warmup off" measures its cold start instead, for a side by side. Each side's
# collections: TOKENMETER_JAVA_OPTS="-Xlog:gc*:file=client-gc.log" and SERVER_JAVA_OPTS alike.
. "$(dirname "$0")/lib.sh"

PORT=${PORT:-18537}
TOKENIZER=${TOKENIZER:-o200k_base}
REPEATS=${REPEATS:-2}
OUT=${OUT:-results/trace-lag-$(date -u +%Y%m%dT%H%M%SZ)}
begin_results

TRACE=${TRACE:-}
if [ -z "$TRACE" ]; then
  TRACE="$OUT/hour.jsonl"
  python3 - "$TRACE" <<'PY'
import json, math, random, sys
rnd = random.Random(37)
t, out, next_id = 0.0, [], 1000
while len(out) < 12000:
    rate = (12000 / 3600) * (1 + 0.5 * math.sin(2 * math.pi * t / 3600e3))  # per second
    t += rnd.expovariate(rate) * 1e3
    n = min(120_000, max(64, int(rnd.lognormvariate(math.log(8000), 0.9))))
    blocks = -(-n // 512)
    ids = [p * 4 + k for p in [rnd.randrange(50)] for k in range(min(4, blocks))]
    while len(ids) < blocks:
        ids.append(next_id); next_id += 1
    out.append({"timestamp": int(t), "input_length": n, "output_length": rnd.randint(16, 512), "hash_ids": ids})
with open(sys.argv[1], "w") as f:
    for r in out:
        f.write(json.dumps(r) + "\n")
PY
fi

# The busiest minute: the 60 s window (on whole seconds) holding the most records.
WINDOW=$(python3 - "$TRACE" <<'PY'
import json, sys, collections
first, per_s = None, collections.Counter()
for line in open(sys.argv[1]):
    if not line.strip(): continue
    r = json.loads(line)
    ts = r.get("timestamp", r.get("at_ms"))
    first = ts if first is None else first
    per_s[int((ts - first) // 1000)] += 1
last = max(per_s)
best = max(range(0, max(1, last - 59) + 1), key=lambda s: sum(per_s[s + k] for k in range(60)))
print(f"{best}s..{best + 60}s")
PY
)
echo "busiest minute of $TRACE: $WINDOW" | tee -a "$OUT/machine.txt"

for rep in $(seq 1 "$REPEATS"); do
  dir="$OUT/r$rep"
  mkdir -p "$dir"
  start_server "$PORT" "$dir/server.log" --ttft 50ms --itl 10ms
  taskset -c "$CLIENT_CPUS" bench/client.sh bench --url "http://127.0.0.1:$PORT" --api completions \
    --trace "$TRACE" --trace-window "$WINDOW" --tokenizer "$TOKENIZER" --extra-body '{"ignore_eos":true}' \
    -q --out "$dir" ${CLIENT_ARGS:-} >"$dir/client.log" 2>&1 || { echo "bench failed: see $dir/client.log" >&2; }
  stop_server
  echo "rep $rep: requests $(bt get "$dir/summary.json" stages.0.requests.completed)," \
    "send lag ms p50 $(bt get "$dir/summary.json" stages.0.client_health.send_lag_ms.p50)" \
    "p99 $(bt get "$dir/summary.json" stages.0.client_health.send_lag_ms.p99)" \
    "max $(bt get "$dir/summary.json" stages.0.client_health.send_lag_ms.max)," \
    "warm-up $(bt get "$dir/summary.json" settings.workload.trace_warmup), load $(loadavg)" | tee -a "$OUT/results.txt"
done
