# Sourced by ./tokenmeter: `tm_heap_mb ARGS...` prints the heap cap (MiB) for one command line.
#
# A closed-loop `bench` whose in-flight data is known from its arguments gets a heap sized to it:
# 128 MiB (the JVM's own data, a tokenizer, the report; measured enough at 1,000 streams of 2,048
# tokens, docs/PERFORMANCE.md §3) plus 48 bytes per in-flight token (a request keeps about 25 per
# token: its chunk time, length and kind, and the text for the tokenizer; doubled for the arrays'
# growth). Anything whose memory the arguments do not bound (open loop, prompt or traffic files,
# a Hugging Face tokenizer, variants, searches, other commands) keeps the 1 GiB cap.
tm_heap_mb() {
  local default=1024 streams="" tokens=256 a v n
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
  echo $((128 + (streams * tokens * 48 + 1048575) / 1048576))
}
