# Shared by bench/*.sh (sourced). Needs bash, a JDK 21+, taskset, and /proc (Linux).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck source=../scripts/find-jdk.sh
. "$ROOT/scripts/find-jdk.sh"
tm_find_jdk
export JAVA_HOME="$TOKENMETER_JAVA_HOME"
JAVA="$JAVA_HOME/bin/java"
JMH_JAR="$ROOT/tokenmeter-cli/target/tokenmeter-jmh.jar"
SERVER_PID=""
# The CPUs (a taskset list) the client and the server run on: one each by default, which is all a
# 2-core machine has; on a bigger one e.g. CLIENT_CPUS=0-3 SERVER_CPUS=4-7 gives each side room for
# its JIT, collector and counting threads beside its event loop.
CLIENT_CPUS=${CLIENT_CPUS:-0}
SERVER_CPUS=${SERVER_CPUS:-1}
# The client's --event-loops (auto, the default, is one loop per 256 streams, at most half the
# machine's cores: always one on 2 cores).
EVENT_LOOPS=${EVENT_LOOPS:-auto}

bt() { "$JAVA" -cp "$JMH_JAR" dev.tokenmeter.bench.BenchTools "$@"; }

# aot_prepare: trains the bench's AOT cache now (JDK 25+, scripts/aot-cache.sh) when the jar is newer,
# so that the first measured client does not train it in its own run.
aot_prepare() {
  # shellcheck source=../scripts/heap-for-run.sh
  . "$ROOT/scripts/heap-for-run.sh"
  # shellcheck source=../scripts/aot-cache.sh
  . "$ROOT/scripts/aot-cache.sh"
  if tm_aot_wanted bench; then
    tm_aot_prepare "$ROOT/target/tokenmeter.jar" >/dev/null
  fi
}

build() {
  echo "building (mvnw -Pjmh package)..." >&2
  ./mvnw -q -o -Pjmh -pl tokenmeter-cli -am package -DskipTests >/dev/null 2>&1 || ./mvnw -q -Pjmh -pl tokenmeter-cli -am package -DskipTests
}

machine() {
  echo "machine: nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), kernel $(uname -r)," \
    "JDK $("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.runtime\.version = //p')," \
    "client CPUs $CLIENT_CPUS, server CPUs $SERVER_CPUS, client event loops $EVENT_LOOPS, load $(loadavg)"
}

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }

# begin_results: builds (unless SKIP_BUILD=1), creates $OUT and records there the machine and the
# client's JVM options.
begin_results() {
  [ "${SKIP_BUILD:-0}" = 1 ] || build
  aot_prepare
  mkdir -p "$OUT"
  machine | tee "$OUT/machine.txt"
  echo "client JVM options: TOKENMETER_JAVA_OPTS='${TOKENMETER_JAVA_OPTS:-}'" | tee -a "$OUT/machine.txt"
}

# start_server PORT LOGFILE ARGS...: `tokenmeter sim serve` alone on SERVER_CPUS; waits until it answers.
# TOKENMETER_JAVA_OPTS is for the client only; the server gets SERVER_JAVA_OPTS, and SERVER_ARGS
# (split on spaces) after ARGS.
start_server() {
  local port=$1 log=$2; shift 2
  # shellcheck disable=SC2086 # SERVER_ARGS is a list of arguments
  TOKENMETER_JAVA_OPTS="${SERVER_JAVA_OPTS:-}" taskset -c "$SERVER_CPUS" ./tokenmeter sim serve --port "$port" "$@" ${SERVER_ARGS:-} 2>"$log" &
  SERVER_PID=$!
  await_port "$port" "server" "$log"
}

# await_port PORT WHAT LOGFILE: waits up to 15 s until 127.0.0.1:PORT accepts a connection.
await_port() {
  for _ in $(seq 1 150); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "$2 did not start; see $3" >&2; cat "$3" >&2; return 1
}

# stop_pid VAR: SIGTERM to the process whose PID the variable VAR holds, waits for it, clears VAR.
stop_pid() {
  local pid=${!1}
  if [ -n "$pid" ]; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    printf -v "$1" '%s' ""
  fi
}

# start_zero_delay_client PORT C WARMUP_S WINDOW_S DIR: `tokenmeter bench` on CLIENT_CPUS in the
# background (its PID in $!), closed loop, 16 prompt tokens, OUTPUT_TOKENS output tokens
# (ignore_eos), as client-capacity.sh and peers.sh run it. CLIENT_ARGS (split on spaces) is added
# to its arguments, e.g. CLIENT_ARGS="--model gpt-4o" to count with a tokenizer loaded.
start_zero_delay_client() {
  # shellcheck disable=SC2086 # CLIENT_ARGS is a list of arguments
  taskset -c "$CLIENT_CPUS" bench/client.sh bench --url "http://127.0.0.1:$1" --concurrency "$2" --event-loops "$EVENT_LOOPS" \
    --warmup "${3}s" --duration "${4}s" --cooldown 0s --input-tokens 16 \
    --output-tokens "$OUTPUT_TOKENS" --extra-body '{"ignore_eos":true}' -q --out "$5" ${CLIENT_ARGS:-} >"$5/client.log" 2>&1 &
}

# stop_server: SIGTERM makes it print its counters (requests, tokens, connections) to its log.
stop_server() {
  stop_pid SERVER_PID
}
trap stop_server EXIT

# cpu_ticks PID [COMM]: "utime stime" in clock ticks of the process, or of its thread named COMM.
cpu_ticks() {
  local pid=$1 comm=${2:-} f
  if [ -z "$comm" ]; then
    f=/proc/$pid/stat
  else
    f=$(grep -lx "$comm" /proc/"$pid"/task/*/comm 2>/dev/null | head -n1 | sed 's/comm$/stat/')
    [ -n "$f" ] || { echo "0 0"; return; }
  fi
  # Fields after the ')' that closes comm: utime and stime are fields 14 and 15 of stat.
  sed 's/^.*) //' "$f" | awk '{print $12, $13}'
}

# sched_ms PID: "run wait" in ms summed over the process's threads, from /proc/PID/task/*/schedstat
# (time on a CPU, time runnable but waiting for one): the second is the machine's share of any delay.
sched_ms() {
  { cat /proc/"$1"/task/*/schedstat 2>/dev/null || true; } | awk '{r += $1; w += $2} END {printf "%.0f %.0f\n", r / 1e6, w / 1e6}'
}

# kib FIELD PID: a field of /proc/PID/status in KiB (VmRSS, VmHWM).
kib() { awk -v k="$1:" '$1==k {print $2}' /proc/"$2"/status; }

now_ns() { date +%s%N; }

