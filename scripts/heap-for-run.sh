# Sourced by ./tokenmeter: `tm_heap_mb ARGS...` prints the heap cap (MiB) for one command line.
#
# A closed-loop `bench` whose in-flight data is known from its arguments gets a heap sized to it
# (docs/PERFORMANCE.md, "Memory": "The heap cap follows the run"):
# - 64 MiB: the JVM's own data and the report, 15 MB live in a 1-stream run, with room for the
#   young generation;
# - 16 KiB per stream: 10-13 KB live per stream in flight (its connection, its request and
#   response objects: 24-28 MB live at 1,000 streams), and more so that the old generation's room
#   for the requests that die there (they live seconds, so they are promoted first) grows with the
#   streams. Since a request's text and chunk log stopped doubling (2026-11-27) about 5 KB of each
#   request is promoted, not 10 (at 1,000 paced streams 0.8-0.9 MiB/s instead of 1.6-1.8), so the
#   term went from 24 to 16 KiB with full collections still rarer than before. Lower caps were
#   measured and not taken: 56 MiB + 16 KiB put a full collection into a 20 s window at 1,000
#   streams of 64 tokens (docs/PERFORMANCE.md, "Memory");
# - 32 bytes per in-flight token (a request keeps its chunks in a ChunkLog, about 5 bytes each, and
#   the answer text for the word and token counts, 5-10 bytes a token; doubled: text outside
#   Latin-1 takes two bytes a char, in a buffer that grows by doubling);
# - 40 MiB more when `--model` is given: a named model may load a tokenizer (o200k_base holds
#   33 MB live). Without --model the bench uses the model the server lists first, which the
#   launcher cannot see; tm_java_opts then tells the client (-Dtokenmeter.heap.noTokenizerMb) so
#   that it warns when that model does load one.
# Anything whose memory the arguments do not bound (open loop, prompt or traffic files, a Hugging
# Face tokenizer, variants, searches, other commands) keeps the 1 GiB cap.
tm_heap_mb() {
  local default=1024 streams="" tokens=256 tokenizer=0 a v n
  [ "${1:-}" = bench ] || { echo "$default"; return; }
  shift
  while [ $# -gt 0 ]; do
    a=$1
    shift
    v=""
    case "$a" in
      --*=*) v=${a#*=}; a=${a%%=*} ;;
    esac
    case "$a" in
      --model) tokenizer=40 ;;
      --rate | --max-concurrency | --prompts | --traffic | --tokenizer | --tokenizer-map | --variant \
        | --find-max-concurrency | --find-max-rate | --turns | --repeat)
        echo "$default"; return ;;
      --concurrency | --output-tokens)
        if [ -z "$v" ] && [ $# -gt 0 ]; then v=$1; shift; fi
        for n in ${v//,/ }; do
          [[ "$n" =~ ^[0-9]+$ ]] || { echo "$default"; return; }
          if [ "$a" = --output-tokens ]; then
            tokens=$n
          elif [ -z "$streams" ] || [ "$n" -gt "$streams" ]; then
            streams=$n
          fi
        done ;;
    esac
  done
  [ -n "$streams" ] || { echo "$default"; return; }
  echo $(((64 * 1048576 + streams * 16384 + streams * tokens * 32 + 1048575) / 1048576 + tokenizer))
}

# `tm_names_model ARGS...`: whether the command line gives --model.
tm_names_model() {
  local a
  for a in "$@"; do
    case "$a" in --model | --model=*) return 0 ;; esac
  done
  return 1
}

# `tm_java_opts ARGS...` sets the array TM_JAVA_OPTS: the JVM options ./tokenmeter (and
# bench/client.sh) run one command line with, before TOKENMETER_JAVA_OPTS (which comes last, so its
# options win). docs/PERFORMANCE.md, "Memory", has the measurements behind them.
#
# - `bench`, the client: the serial collector, a heap that starts at 16 MiB and grows only as far as
#   the live data needs (the serial collector expands the heap only when less than 40 % is free
#   after a collection), capped by tm_heap_mb; and, on JDK 22+, freed native memory handed back to
#   the OS every second (-XX:TrimNativeHeapInterval). The client runs on one event loop, so a
#   parallel collector has no idle cores to use, and its throughput-driven sizing grows the heap to
#   the cap whatever the live data.
# - `proxy`: the serial collector, as `bench`, under the 1 GiB cap (its live data follows the
#   traffic, which no argument bounds), a heap that starts at 16 MiB and grows with the live data
#   only, and freed native memory handed back every second (JDK 22+). The parallel collector sized
#   its heap for throughput, growing it towards the cap with the allocation rate (the faster the
#   upstream, the larger: 168-170 MiB resident at 100 paced streams, 268 MiB at zero delay, against
#   14 MiB of live data after a collection), and with a 1 GiB cap commits a 16 MiB marking bitmap
#   (1/64 of the heap) whatever the heap's use (docs/PERFORMANCE.md, "The proxy's wake-ups and its
#   heap").
# - Any other command (the simulator, virtual-time simulation) keeps the parallel collector and
#   its cap.
# - Every command: an exhausted heap ends the process with one line naming TOKENMETER_JAVA_OPTS
#   (scripts/out-of-memory.sh) instead of the JVM's banner and stack traces; the JVM's own messages
#   on stdout are off for that (TOKENMETER_JAVA_OPTS=-XX:+DisplayVMOutput brings them back, e.g. for
#   a thread dump with kill -3).
tm_java_opts() {
  local mb limit o here gc=""
  mb=$(tm_heap_mb "$@")
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
  limit="-Xmx${mb}m"
  for o in ${TOKENMETER_JAVA_OPTS:-}; do
    case "$o" in
      -Xmx*) limit=$o ;;
      -XX:+Use*GC) gc=$o ;; # the user's collector: adding ours would make the JVM refuse to start
    esac
  done
  TM_JAVA_OPTS=(--enable-native-access=ALL-UNNAMED -Xss512k "-Xmx${mb}m" -Dio.netty.leakDetection.level=disabled)
  if [ "${1:-}" = bench ]; then
    [ -n "$gc" ] || TM_JAVA_OPTS+=(-XX:+UseSerialGC)
    TM_JAVA_OPTS+=(-Xms16m)
    [ "${TOKENMETER_JAVA_MAJOR:-21}" -lt 22 ] || TM_JAVA_OPTS+=(-XX:TrimNativeHeapInterval=1000)
    if [ "$mb" != 1024 ] && [ "$limit" = "-Xmx${mb}m" ] && ! tm_names_model "$@"; then
      TM_JAVA_OPTS+=("-Dtokenmeter.heap.noTokenizerMb=$mb")
    fi
  elif [ "${1:-}" = proxy ]; then
    [ -n "$gc" ] || TM_JAVA_OPTS+=(-XX:+UseSerialGC)
    TM_JAVA_OPTS+=(-Xms16m)
    [ "${TOKENMETER_JAVA_MAJOR:-21}" -lt 22 ] || TM_JAVA_OPTS+=(-XX:TrimNativeHeapInterval=1000)
  else
    [ -n "$gc" ] || TM_JAVA_OPTS+=(-XX:+UseParallelGC)
  fi
  TM_JAVA_OPTS+=(-XX:+UnlockDiagnosticVMOptions -XX:-DisplayVMOutput
    "-XX:OnOutOfMemoryError='$here/out-of-memory.sh' %p $limit $mb")
}
