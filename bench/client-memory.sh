#!/usr/bin/env bash
# Client memory: resident set of the tokenmeter client JVM, run with the launcher's defaults
# (./tokenmeter), against `tokenmeter sim serve` in its own process, paced (--ttft 50ms --itl 20ms,
# one token per write) or at zero delay (--zero-delay-batch 1). Client on CPU 0, server on CPU 1.
#
#   bench/client-memory.sh                                   # the matrix of docs/PERFORMANCE.md, "Memory"
#   MODES=paced CONCURRENCY=1000 DURATIONS="20 60" bench/client-memory.sh
#   DETAIL=1 ...                                             # also a class histogram and NMT summary
#   CLIENT_ARGS="--model gpt-4o" SERVER_ARGS="--served-model-name gpt-4o" ...
#                                                            # with a tokenizer loaded (o200k_base)
#
# Each run samples VmRSS of the client every second from its start to its end and reads VmHWM
# (the high-water mark) at the last sample; "late" is the mean RSS of the last quarter of the
# samples, "early" that of the second quarter (after start-up), so late - early shows growth with
# run length. The baseline is a 1-stream paced run of the same length: the JVM with everything
# loaded, compiled and streaming. With DETAIL=1 the client also runs with
# -XX:NativeMemoryTracking=summary, and 3 s before the end `jcmd` takes its native memory summary
# and a class histogram (which runs a full GC first: the live heap) into the run's folder.
. "$(dirname "$0")/lib.sh"

MODES=${MODES:-"paced zero"}
CONCURRENCY=${CONCURRENCY:-"100 1000"}
DURATIONS=${DURATIONS:-"20 60"}
OUTPUT_TOKENS=${OUTPUT_TOKENS:-256}
PORT=${PORT:-18541}
OUT=${OUT:-results/memory-$(date -u +%Y%m%dT%H%M%SZ)}
begin_results

# run_one MODE C SECONDS: one bench run of SECONDS (no warm-up, no cool-down); prints one line.
run_one() {
  local mode=$1 c=$2 secs=$3 dir="$OUT/$1-c$2-${3}s"
  mkdir -p "$dir"
  if [ "$mode" = paced ]; then
    start_server "$PORT" "$dir/server.log" --ttft 50ms --itl 20ms
  else
    start_server "$PORT" "$dir/server.log" --zero-delay --zero-delay-batch 1
  fi
  local load0; load0=$(loadavg) opts=${TOKENMETER_JAVA_OPTS:-}
  [ "${DETAIL:-0}" = 1 ] && opts="$opts -XX:NativeMemoryTracking=summary"
  TOKENMETER_JAVA_OPTS="$opts" start_zero_delay_client "$PORT" "$c" 0 "$secs" "$dir"
  local cpid=$! hwm=0 r n=0
  while kill -0 "$cpid" 2>/dev/null; do
    r=$(kib VmRSS "$cpid" 2>/dev/null) || break
    [ -n "$r" ] || break
    echo "$r" >>"$dir/rss_kib.txt"
    hwm=$(kib VmHWM "$cpid" 2>/dev/null || echo "$hwm")
    n=$((n + 1))
    if [ "${DETAIL:-0}" = 1 ] && [ "$n" -eq $((secs - 2)) ]; then
      "$JAVA_HOME/bin/jcmd" "$cpid" VM.native_memory summary >"$dir/nmt.txt" 2>&1 || true
      "$JAVA_HOME/bin/jcmd" "$cpid" GC.class_histogram >"$dir/histogram.txt" 2>&1 || true
    fi
    sleep 1
  done
  wait "$cpid" || { echo "bench failed: see $dir/client.log" >&2; tail -5 "$dir/client.log" >&2; }
  local load1; load1=$(loadavg)
  stop_server
  local tps tpc lag
  tps=$(bt get "$dir/summary.json" stages.0.throughput.output_tokens_per_s 2>/dev/null || echo NaN)
  tpc=$(bt get "$dir/summary.json" stages.0.client_health.output_tokens_per_cpu_second 2>/dev/null || echo NaN)
  lag=$(bt get "$dir/summary.json" stages.0.client_health.loop_lag_ms.p99 2>/dev/null || echo NaN)
  awk -v mode="$mode" -v c="$c" -v secs="$secs" -v hwm="$hwm" -v tps="$tps" -v tpc="$tpc" -v lag="$lag" \
      -v la0="$load0" -v la1="$load1" '
    { v[NR] = $1 }
    END {
      q = int(NR / 4); if (q < 1) q = 1
      for (i = q + 1; i <= 2 * q; i++) { e += v[i]; ne++ }
      for (i = NR - q + 1; i <= NR; i++) { l += v[i]; nl++ }
      printf "%-5s c=%-5s %3ss tokens/s %8.0f CPU-s/Mtok %5.2f loop lag p99 %7.1f ms | RSS early %6.1f late %6.1f MiB (late-early %+6.1f), HWM %6.1f MiB | load %s -> %s\n",
        mode, c, secs, tps, 1e6 / tpc, lag, e / ne / 1024, l / nl / 1024, (l / nl - e / ne) / 1024, hwm / 1024, la0, la1
    }' "$dir/rss_kib.txt" | tee -a "$OUT/results.txt"
}

[ "${SKIP_BASE:-0}" = 1 ] || run_one paced 1 "${BASE_SECONDS:-20}"
for secs in $DURATIONS; do
  for mode in $MODES; do
    for c in $CONCURRENCY; do
      run_one "$mode" "$c" "$secs"
    done
  done
done
echo "results: $OUT/results.txt"
