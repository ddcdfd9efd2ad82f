# Sourced by ./tokenmeter (after scripts/heap-for-run.sh) and bench/lib.sh: JDK 25's AOT cache for
# `bench` (JEP 483 classes loaded and linked ahead of time, JEP 515 method profiles; one training
# run, JEP 514's -XX:AOTCacheOutput).
#
# Why (docs/PERFORMANCE.md, "Bringing the whole run down"): on one CPU a bench's start-up and the
# JIT's warm-up are a large part of what a short run costs. With the cache the client's CPU before
# its first request fell from 3.5-5.8 to 2.3-2.9 CPU-s (bench/peers.sh, 64 streams, 7 pairs on the
# loaded 2-core machine). JDK 25 caches profiles, not compiled code, so C2 still compiles the same
# methods (earlier): over a whole 40 s run no effect on the CPU per token was shown (3 pairs).
#
# - Only `bench`, only on JDK 25+ (JDK 21-24 run as before), off with TOKENMETER_AOT=0.
# - The cache is target/aot/bench.aot, trained once per jar and JDK: when it is missing or older than
#   the jar or the JDK's lib/modules, the first `bench` (or bench/lib.sh's aot_prepare) trains it
#   with `demo` (the embedded simulator, 64 paced streams, 12 s) under the bench's own JVM options:
#   about 30 s on the 2-core machine, 42 MB on disk. A training that fails leaves a marker
#   (bench.aot.failed) and the bench runs without a cache until the next build.
# - A cache the JVM cannot use (another jar path, other module options) is skipped silently
#   (-Xlog:aot=off), costing only the start-up it would have saved.

# tm_aot_wanted ARGS...: true when this command line should run with the cache (not for a bench
# that only prints its help or version: those would wait for a training they do not need).
tm_aot_wanted() {
  local a
  [ "${1:-}" = bench ] && [ "${TOKENMETER_AOT:-1}" != 0 ] && [ "${TOKENMETER_JAVA_MAJOR:-21}" -ge 25 ] || return 1
  for a in "$@"; do
    case "$a" in -h | --help | -V | --version) return 1 ;; esac
  done
  return 0
}

# tm_aot_stale JAR CACHE: true when CACHE is missing or older than JAR or the JDK's module image.
tm_aot_stale() {
  local jar=$1 cache=$2 modules="$TOKENMETER_JAVA_HOME/lib/modules"
  [ -f "$cache" ] || return 0
  [ "$jar" -nt "$cache" ] && return 0
  [ -f "$modules" ] && [ "$modules" -nt "$cache" ] && return 0
  return 1
}

# tm_aot_prepare JAR: trains the cache beside JAR when it is stale (one launcher at a time); prints
# the cache's path when it can be used.
tm_aot_prepare() {
  local jar=$1 dir cache log out
  dir="$(dirname "$jar")/aot"
  cache="$dir/bench.aot"
  { mkdir -p "$dir" && [ -w "$dir" ]; } 2>/dev/null || return 0 # a read-only install runs without
  if tm_aot_stale "$jar" "$cache"; then
    if [ -f "$cache.failed" ] && ! [ "$jar" -nt "$cache.failed" ]; then
      return 0
    fi
    exec 8>"$dir/.train.lock"
    if command -v flock >/dev/null 2>&1 && ! flock -n 8; then
      echo "tokenmeter: waiting for another tokenmeter's AOT training to finish..." >&2
      flock 8
    fi
    if tm_aot_stale "$jar" "$cache"; then
      echo "tokenmeter: training the JVM's AOT cache for bench (JDK 25+, once per build, about 30 s; TOKENMETER_AOT=0 skips it)..." >&2
      log="$dir/train.log"
      out="$(mktemp -d)"
      rm -f "$cache" "$cache.tmp" "$cache.failed"
      tm_java_opts bench --concurrency 64
      # The bench's own options (the cache keeps only what they allow), a heap with room for the
      # embedded simulator, and the training workload: 64 streams of one token every 2 ms.
      if "$TOKENMETER_JAVA_HOME/bin/java" "${TM_JAVA_OPTS[@]}" -Xmx256m -XX:AOTCacheOutput="$cache.tmp" \
          -jar "$jar" demo --concurrency 64 --warmup 0s --duration 12s --cooldown 0s \
          --server-ttft 5ms --server-itl 2ms --output-tokens 256 -q --out "$out" >"$log" 2>&1 \
          && [ -s "$cache.tmp" ]; then
        mv "$cache.tmp" "$cache"
      else
        rm -f "$cache.tmp"
        touch "$cache.failed"
        echo "tokenmeter: the AOT training failed ($log); bench runs without the cache until the next build." >&2
      fi
      rm -rf "$out"
    fi
    exec 8>&-
  fi
  [ -f "$cache" ] && ! tm_aot_stale "$jar" "$cache" && echo "$cache"
  return 0
}

# tm_aot_opts JAR ARGS...: appends the cache's options to TM_JAVA_OPTS for this command line
# (training it first when needed); nothing when tm_aot_wanted is false.
tm_aot_opts() {
  local jar=$1 cache saved
  shift
  tm_aot_wanted "$@" || return 0
  saved=("${TM_JAVA_OPTS[@]}")
  cache=$(tm_aot_prepare "$jar") || cache=""
  TM_JAVA_OPTS=("${saved[@]}")
  [ -n "$cache" ] || return 0
  TM_JAVA_OPTS+=("-XX:AOTCache=$cache" -Xlog:aot=off -Xlog:cds=off)
}
