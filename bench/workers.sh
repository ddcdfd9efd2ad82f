#!/usr/bin/env bash
# bench --workers against one process (issue 41): `sim serve` (fixed TTFT and ITL, its own CPUs)
# is measured by one bench process at STREAMS streams, then by WORKERS local workers at WORKERS ×
# STREAMS streams (--workers, one coordinator); the merged TTFT and ITL p50 should be within 1 ms
# of the single process's (the server's timing does not depend on its load; the workers' clients
# each hold what the single one held). Prints both, the differences, each worker's client health
# and the coordinator's own cost (its CPU-seconds per worker, the MB the workers streamed).
#
#   bench/workers.sh                                   # 4 x 500 streams; needs a quiet machine with
#   CLIENT_CPUS=0-7 SERVER_CPUS=8-11 bench/workers.sh  # cores for the workers (1,000 streams ~ 2 cores)
#   STREAMS=20 WINDOW=5 bench/workers.sh               # a smoke run
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
. "$ROOT/scripts/find-jdk.sh"
tm_find_jdk
JAVA="$TOKENMETER_JAVA_HOME/bin/java"
WORKERS=${WORKERS:-4}
STREAMS=${STREAMS:-500}
WARMUP=${WARMUP:-10}
WINDOW=${WINDOW:-30}
TTFT_MS=${TTFT_MS:-50}
ITL_MS=${ITL_MS:-20}
OUTPUT_TOKENS=${OUTPUT_TOKENS:-128}
CLIENT_CPUS=${CLIENT_CPUS:-0}
SERVER_CPUS=${SERVER_CPUS:-1}
OUT=${OUT:-"$ROOT/target/bench-workers/$(date -u +%Y%m%dT%H%M%SZ)"}
PORT=${PORT:-18471}
[ -f tokenmeter-cli/target/tokenmeter.jar ] || ./mvnw -q -o -DskipTests -pl tokenmeter-cli -am package
mkdir -p "$OUT"
TM=("$JAVA" -jar "$ROOT/tokenmeter-cli/target/tokenmeter.jar")

taskset -c "$SERVER_CPUS" "${TM[@]}" sim serve --port "$PORT" --ttft "${TTFT_MS}ms" --itl "${ITL_MS}ms" \
  >"$OUT/sim.log" 2>&1 &
SIM=$!
trap 'kill $SIM 2>/dev/null || true' EXIT
for _ in $(seq 50); do grep -q "serving " "$OUT/sim.log" 2>/dev/null && break; sleep 0.2; done

run() { # NAME CONCURRENCY [bench flags...]
  local name=$1 c=$2; shift 2
  taskset -c "$CLIENT_CPUS" "${TM[@]}" bench --url "http://127.0.0.1:$PORT" --concurrency "$c" \
    --warmup "${WARMUP}s" --duration "${WINDOW}s" --cooldown 2s --input-tokens 64 \
    --output-tokens "$OUTPUT_TOKENS" --extra-body '{"ignore_eos":true}' --out "$OUT/$name" -q "$@" \
    >"$OUT/$name.out" 2>"$OUT/$name.err"
}
echo "machine: nproc $(nproc), load $(cut -d' ' -f1-3 /proc/loadavg), client CPUs $CLIENT_CPUS, server CPUs $SERVER_CPUS" \
  | tee "$OUT/machine.txt"
run single "$STREAMS"
run workers "$((WORKERS * STREAMS))" --workers "$WORKERS"
python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
s = json.load(open(f"{out}/single/summary.json"))["stages"][0]
w = json.load(open(f"{out}/workers/summary.json"))
m = w["stages"][0]
for metric in ("ttft_ms", "itl_ms"):
    a, b = s["metrics"][metric]["p50"], m["metrics"][metric]["p50"]
    print(f"{metric} p50: single {a:.3f} ms, {len(w['workers'])} workers merged {b:.3f} ms, "
          f"difference {b - a:+.3f} ms ({'within' if abs(b - a) <= 1 else 'NOT within'} 1 ms)")
print(f"single client bottleneck: {s['client_health']['bottleneck']} {s['client_health']['reasons']}")
for x in w["workers"]:
    print(f"worker {x['index']} {x['state']}: offset {x['clock_offset_ms']:+.3f} ms, bottleneck "
          f"{[h['bottleneck'] for h in x['client_health']]}")
PY
grep -h "^Coordinator:" "$OUT/workers.out" || true
echo "results: $OUT"
