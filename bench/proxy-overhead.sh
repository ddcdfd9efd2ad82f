#!/usr/bin/env bash
# Metering proxy overhead, side by side in one run: the same bench load against the same
# `tokenmeter sim serve` upstream, (1) directly, (2) through nginx as a plain reverse proxy
# (Debian package; one worker, buffering off, upstream keep-alive), (3) through `tokenmeter proxy`
# metering every token into a SQLite ledger. Client on CPU 0; upstream and proxy share CPU 1.
#
#   bench/proxy-overhead.sh                      # paced (TTFT 50 ms, ITL 20 ms) at 100 streams, then zero delay
#   CONCURRENCY=100 REPEATS=1 WINDOW=20 MODES="direct nginx tokenmeter" bench/proxy-overhead.sh
#   PROXY_JAR=/tmp/tokenmeter-before.jar bench/proxy-overhead.sh   # another build as the proxy
#   PROXY_JAVA_OPTS="-XX:StartFlightRecording=filename=/tmp/proxy.jfr,settings=profile" \
#     SCENARIOS=paced MODES=tokenmeter WARMUP=40 bench/proxy-overhead.sh   # profile the proxy (JFR)
#
# Per run it prints the client's TTFT p50/p99 and ITL p50/p99 (summary.json, ms), the aggregate
# output tokens/s, and the proxy process's CPU seconds per million tokens, read from /proc/PID/stat
# at two instants inside the measurement window (JVM start and JIT warm-up excluded), with its RSS
# at the window's end and its peak RSS (VmHWM) since it started.
# Added TTFT = TTFT through the proxy − TTFT direct, same load, same run.
. "$(dirname "$0")/lib.sh"

CONCURRENCY=${CONCURRENCY:-100}
REPEATS=${REPEATS:-2}
MODES=${MODES:-"direct nginx tokenmeter"}
SCENARIOS=${SCENARIOS:-"paced zero"}
WARMUP=${WARMUP:-10}
WINDOW=${WINDOW:-20}
OUTPUT_TOKENS=${OUTPUT_TOKENS:-256}
PORT=${PORT:-18541}
PROXY_PORT=${PROXY_PORT:-18542}
OUT=${OUT:-results/proxy-$(date -u +%Y%m%dT%H%M%SZ)}
NGINX=${NGINX:-/usr/sbin/nginx}
[ -x "$NGINX" ] || bash scripts/apt-install.sh proxy-overhead nginx || { echo "nginx not found at $NGINX (set NGINX=)" >&2; exit 2; }
[ "${SKIP_BUILD:-0}" = 1 ] || build
OUT=$(mkdir -p "$OUT" && cd "$OUT" && pwd)
machine | tee "$OUT/machine.txt"
"$NGINX" -v 2>&1 | tee -a "$OUT/machine.txt"
PROXY_PID=""

start_proxy() { # MODE DIR: starts the proxy on CPU 1 and waits until it accepts connections
  local mode=$1 dir=$2
  case "$mode" in
    nginx)
      mkdir -p "$dir/nginx-tmp"
      cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
master_process off;
daemon off;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path $dir/nginx-tmp/body;
  proxy_temp_path $dir/nginx-tmp/proxy;
  fastcgi_temp_path $dir/nginx-tmp/fastcgi;
  uwsgi_temp_path $dir/nginx-tmp/uwsgi;
  scgi_temp_path $dir/nginx-tmp/scgi;
  upstream sim { server 127.0.0.1:$PORT; keepalive 2048; }
  server {
    listen 127.0.0.1:$PROXY_PORT backlog=4096;
    location / {
      proxy_pass http://sim;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 600s;
    }
  }
}
CONF
      taskset -c 1 "$NGINX" -c "$dir/nginx.conf" -p "$dir" >"$dir/proxy.log" 2>&1 &
      ;;
    tokenmeter)
      TOKENMETER_JAVA_OPTS="${PROXY_JAVA_OPTS:-}" CLIENT_JAR="${PROXY_JAR:-}" taskset -c 1 bench/client.sh proxy --listen "127.0.0.1:$PROXY_PORT" \
        --upstream "http://127.0.0.1:$PORT" --ledger "$dir/ledger.db" ${PROXY_ARGS:-} >"$dir/proxy.log" 2>&1 &
      ;;
  esac
  PROXY_PID=$!
  await_port "$PROXY_PORT" "$mode" "$dir/proxy.log"
}

stop_proxy() { stop_pid PROXY_PID; }
trap 'stop_proxy; stop_server' EXIT

run_one() { # SCENARIO MODE C REP
  local scenario=$1 mode=$2 c=$3 rep=$4 dir="$OUT/$1-$2-c$3-r$4" url="http://127.0.0.1:$PORT"
  mkdir -p "$dir"
  case "$scenario" in
    paced) start_server "$PORT" "$dir/server.log" --ttft 50ms --itl 20ms ;;
    zero) start_server "$PORT" "$dir/server.log" --zero-delay --zero-delay-batch 1 ;;
  esac
  if [ "$mode" != direct ]; then
    start_proxy "$mode" "$dir"
    url="http://127.0.0.1:$PROXY_PORT"
  fi
  local load0; load0=$(loadavg)
  taskset -c 0 bench/client.sh bench --url "$url" --concurrency "$c" --warmup "${WARMUP}s" \
    --duration "${WINDOW}s" --cooldown 0s --input-tokens 16 --output-tokens "$OUTPUT_TOKENS" \
    --extra-body '{"ignore_eos":true}' -q --out "$dir" >"$dir/client.log" 2>&1 &
  local cpid=$! t0 p0 t1 p1 rss=0 hwm=0
  sleep $((WARMUP + 3))
  t0=$(now_ns); p0=$(cpu_ticks "${PROXY_PID:-$SERVER_PID}")
  sleep $((WINDOW - 5))
  t1=$(now_ns); p1=$(cpu_ticks "${PROXY_PID:-$SERVER_PID}")
  [ -n "$PROXY_PID" ] && rss=$(kib VmRSS "$PROXY_PID") && hwm=$(kib VmHWM "$PROXY_PID")
  wait $cpid || { echo "bench failed: see $dir/client.log" >&2; tail -5 "$dir/client.log" >&2; }
  local load1; load1=$(loadavg)
  stop_proxy
  stop_server
  local s="$dir/summary.json" tps
  tps=$(bt get "$s" stages.0.throughput.output_tokens_per_s)
  awk -v sc="$scenario" -v mode="$mode" -v c="$c" -v rep="$rep" -v t0="$t0" -v t1="$t1" -v p0="$p0" -v p1="$p1" \
      -v tps="$tps" -v rss="$rss" -v hwm="$hwm" -v la0="$load0" -v la1="$load1" \
      -v tt50="$(bt get "$s" stages.0.metrics.ttft_ms.p50)" -v tt99="$(bt get "$s" stages.0.metrics.ttft_ms.p99)" \
      -v it50="$(bt get "$s" stages.0.metrics.itl_ms.p50)" -v it99="$(bt get "$s" stages.0.metrics.itl_ms.p99)" \
      -v err="$(bt get "$s" stages.0.requests.failed)" 'BEGIN {
    dt = (t1 - t0) / 1e9; split(p0, a); split(p1, b)
    cpu = ((b[1] - a[1]) + (b[2] - a[2])) / 100 / dt
    printf "%-5s %-10s c=%-4s r%s | TTFT p50 %7.2f p99 %7.2f ms | ITL p50 %6.2f p99 %6.2f ms | %8.0f tok/s | %s CPU-s/Mtok %6.2f (%3.0f%% of a core) | RSS %5.1f MiB (peak %5.1f) | failed %s | load %s -> %s\n",
      sc, mode, c, rep, tt50, tt99, it50, it99, tps, (mode == "direct" ? "server" : "proxy "), cpu / (tps / 1e6), 100 * cpu, rss / 1024, hwm / 1024, err, la0, la1
  }' | tee -a "$OUT/results.txt"
}

for rep in $(seq 1 "$REPEATS"); do
  for scenario in $SCENARIOS; do
    for mode in $MODES; do
      run_one "$scenario" "$mode" "$CONCURRENCY" "$rep"
    done
  done
done
echo "results: $OUT/results.txt"
