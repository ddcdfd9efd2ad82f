#!/usr/bin/env bash
# Timing fidelity: the server (`tokenmeter sim serve --ttft 50ms --itl 20ms`, its own process on
# SERVER_CPUS, default CPU 1) writes when it actually emitted every token (--ground-truth,
# System.nanoTime); the client (CLIENT_CPUS, default CPU 0) runs `bench --raw-times` at 1, 100 and 1000 streams; BenchTools joins the two by request
# id (X-Request-Id tm-<run>-<id>) and compares TTFT and ITL: server (actual[0] - arrival, actual
# gaps), client (chunk[0] - sent, chunk gaps) and what summary.json reports. Each side's threads'
# time on a CPU and time runnable but kept off one (/proc/PID/task/*/schedstat) says how much of the
# run the machine, not the program, held it back.
#
#   bench/timing-fidelity.sh
#   CONCURRENCY="100" REPEATS=1 bench/timing-fidelity.sh
#   CLIENT_CPUS=0-3 SERVER_CPUS=4-7 SERVER_IO_THREADS=2 bench/timing-fidelity.sh   # a bigger machine
#   WIRE=1 CONCURRENCY=100 bench/timing-fidelity.sh   # and a third clock: the kernel's
#
# WIRE=1 also records the loopback device with tcpdump (Debian package `tcpdump`, installed via
# scripts/apt-install.sh when missing; capturing needs root or CAP_NET_RAW) on WIRE_CPUS (default:
# the server's): the kernel stamps each segment when the sender's write hands it to the device, a
# clock neither program reads. `BenchTools wire` then splits each side's error against it: the
# client's (wire - sent for the request, chunk - wire for each token) and the server's (arrival -
# wire, wire - actual). The capture costs CPU on WIRE_CPUS; compare its runs with each other.
# The capture keeps whole frames (about 300 bytes a token: 50 MB per 100-stream run, 0.6-1 GB at
# 1,000 streams): a frame cut short would hide the tokens a coalesced write carries after the
# first. The runs' captures are deleted after the join unless WIRE_KEEP=1.
. "$(dirname "$0")/lib.sh"

CONCURRENCY=${CONCURRENCY:-"1 100 1000"}
REPEATS=${REPEATS:-2}
WARMUP=${WARMUP:-5}
WINDOW=${WINDOW:-20}
OUTPUT_TOKENS=${OUTPUT_TOKENS:-128}
PORT=${PORT:-18532}
OUT=${OUT:-results/fidelity-$(date -u +%Y%m%dT%H%M%SZ)}
WIRE=${WIRE:-0}
WIRE_CPUS=${WIRE_CPUS:-$SERVER_CPUS}
if [ "$WIRE" = 1 ] && ! command -v tcpdump >/dev/null 2>&1; then
  bash scripts/apt-install.sh bench/timing-fidelity.sh tcpdump || true
  command -v tcpdump >/dev/null 2>&1 || { echo "bench/timing-fidelity.sh: WIRE=1 needs tcpdump; install the Debian package tcpdump" >&2; exit 1; }
fi
[ "${SKIP_BUILD:-0}" = 1 ] || build
mkdir -p "$OUT"
machine | tee "$OUT/machine.txt"

for rep in $(seq 1 "$REPEATS"); do
  for c in $CONCURRENCY; do
    dir="$OUT/c$c-r$rep"
    mkdir -p "$dir"
    start_server "$PORT" "$dir/server.log" --ttft 50ms --itl 20ms --ground-truth "$dir/ground-truth.jsonl" \
      ${SERVER_IO_THREADS:+--io-threads "$SERVER_IO_THREADS"}
    dump=""
    if [ "$WIRE" = 1 ]; then
      taskset -c "$WIRE_CPUS" tcpdump -i lo -n -s 0 -B 65536 --time-stamp-precision=nano -w "$dir/wire.pcap" \
        "tcp port $PORT" 2>"$dir/tcpdump.log" &
      dump=$!
      for _ in $(seq 1 50); do grep -q "listening on" "$dir/tcpdump.log" 2>/dev/null && break; sleep 0.1; done
    fi
    load0=$(loadavg)
    server0=$(sched_ms "$SERVER_PID")
    taskset -c "$CLIENT_CPUS" bench/client.sh bench --url "http://127.0.0.1:$PORT" --concurrency "$c" --event-loops "$EVENT_LOOPS" \
      --warmup "${WARMUP}s" --duration "${WINDOW}s" --cooldown 0s --input-tokens 16 \
      --output-tokens "$OUTPUT_TOKENS" --extra-body '{"ignore_eos":true}' --raw-times -q \
      --out "$dir" >"$dir/client.log" 2>&1 &
    client=$! client_sched="0 0"
    while kill -0 "$client" 2>/dev/null; do # the last reading before it exits
      now=$(sched_ms "$client") && [ "${now%% *}" != 0 ] && client_sched=$now
      sleep 0.5
    done
    wait "$client" || echo "bench failed: see $dir/client.log" >&2
    server1=$(sched_ms "$SERVER_PID")
    load1=$(loadavg)
    stop_server # flushes the ground-truth file
    if [ -n "$dump" ]; then
      kill -INT "$dump" 2>/dev/null || true
      wait "$dump" 2>/dev/null || true
    fi
    {
      echo "== c=$c run $rep: load $load0 -> $load1; $(grep -o 'emission lateness.*' "$dir/server.log")"
      read -r crun cwait <<<"$client_sched"; read -r s0run s0wait <<<"$server0"; read -r s1run s1wait <<<"$server1"
      echo "   CPU ms (on CPU / runnable but waiting): client $crun / $cwait, server $((s1run - s0run)) / $((s1wait - s0wait))"
      bt fidelity "$dir/requests.jsonl" "$dir/ground-truth.jsonl" "$dir/summary.json"
      if [ -n "$dump" ]; then
        echo "   $(grep -E 'packets (captured|dropped by kernel)' "$dir/tcpdump.log" | tr '\n' ' ')"
        bt wire "$dir/wire.pcap" "$dir/requests.jsonl" "$dir/ground-truth.jsonl" "$(bt clock)"
        [ "${WIRE_KEEP:-0}" = 1 ] || rm -f "$dir/wire.pcap"
      fi
    } | tee -a "$OUT/results.txt"
  done
done
echo "results: $OUT/results.txt"
