#!/usr/bin/env bash
# Peers: the tokenmeter client's CPU per token against wrk's (which reads the HTTP response and
# parses no SSE), both fed by a server that is not tokenmeter's: bench/feed-server.mjs (Node.js),
# which writes one token per socket write to every open stream on one ticker, so both clients are
# fed at the same pace (RATE tokens/s in all, 40,000 by default: well below what the server can
# write, so the server sets the pace, not the client). Each client runs alone on CPU 0, a fresh feed
# server alone on CPU 1
# (CLIENT_CPUS, SERVER_CPUS: bench/lib.sh); the order alternates run by run.
#
#   bench/peers.sh                                  # 64 and 256 streams; 20-, 40- and 120-second runs
#   CONCURRENCY=64 LENGTHS=40 REPEATS=3 bench/peers.sh
#   VARIANT_OPTS="-XX:TieredStopAtLevel=1" CONCURRENCY=64 LENGTHS=40 bench/peers.sh
#
# VARIANT_OPTS adds a third client to every pair: tokenmeter with these JVM options after its own
# (TOKENMETER_JAVA_OPTS for that run), on the same feed, in the same rotation; its line is labelled
# "variant" and the pair line gives its ratio to wrk beside the default's, so a JVM setting is
# judged side by side against the same reference instead of across sessions whose load differs.
#
# For every run the server samples the client's CPU (/proc/PID/stat) and its own token count every
# 100 ms (bench/feed-timeline.mjs reads the samples), and two figures come out:
#   whole  — from the client's first request to its last token: the JVM's start-up before the first
#            request is left out (printed apart), the JIT's warm-up is in, as a user's run has it;
#   steady — the second half of the run, less its last 2 s.
# JIT is the part of the client's CPU per token spent in its JIT compiler threads (0 for wrk).
# Each pair line gives tokenmeter / wrk for both, and refuses a ratio when the two clients were not
# fed the same tokens per second (within TOLERANCE, default 2%): a client that cannot keep up with
# the pace is reported as such, not compared.
. "$(dirname "$0")/lib.sh"

CONCURRENCY=${CONCURRENCY:-"64 256"}
LENGTHS=${LENGTHS:-"20 40 120"}   # seconds of load per run
REPEATS=${REPEATS:-1}
RATE=${RATE:-40000}               # the feed's pace: tokens/s in all, shared by the streams; 0: INTERVAL_MS instead
INTERVAL_MS=${INTERVAL_MS:-1}     # with RATE=0: one token per stream every INTERVAL_MS (0: as fast as it can)
OUTPUT_TOKENS=${OUTPUT_TOKENS:-256}
TOLERANCE=${TOLERANCE:-0.02}
PORT=${PORT:-18600}
VARIANT_OPTS=${VARIANT_OPTS:-}
OUT=${OUT:-results/peers-$(date -u +%Y%m%dT%H%M%SZ)}
FEED_PID=""

command -v node >/dev/null 2>&1 || { echo "bench/peers.sh: Node.js is missing (the feed server runs on it); install the Debian package nodejs" >&2; exit 1; }
if ! command -v wrk >/dev/null 2>&1; then
  bash scripts/apt-install.sh bench/peers.sh wrk || true
  command -v wrk >/dev/null 2>&1 || { echo "bench/peers.sh: wrk is missing; install the Debian package wrk" >&2; exit 1; }
fi
./tokenmeter --version >/dev/null # the launcher builds its jar now when sources changed, not mid-run
aot_prepare                        # and the bench's AOT cache (JDK 25+), not in the first client's run
mkdir -p "$OUT"
machine | tee "$OUT/machine.txt"
[ -z "$VARIANT_OPTS" ] || echo "variant: tokenmeter with TOKENMETER_JAVA_OPTS+='$VARIANT_OPTS'" | tee -a "$OUT/machine.txt"
echo "wrk: $(wrk -v 2>&1 | head -n1); node $(node --version); feed: one token per write, $([ "$RATE" != 0 ] && echo "$RATE tokens/s in all" || echo "every $INTERVAL_MS ms per stream"), $OUTPUT_TOKENS tokens per answer" | tee -a "$OUT/machine.txt"

cat >"$OUT/chat.lua" <<EOF
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"feed","messages":[{"role":"user","content":"one two three four five six seven eight nine ten eleven twelve"}],"max_tokens":$OUTPUT_TOKENS,"stream":true,"stream_options":{"include_usage":true}}'
EOF

stop_feed() { stop_pid FEED_PID; }
trap stop_feed EXIT

# run CLIENT C SECONDS DIR: one run on a fresh feed server; prints the client's result line.
run() {
  local who=$1 c=$2 secs=$3 dir=$4 url="http://127.0.0.1:$PORT"
  taskset -c "$SERVER_CPUS" node bench/feed-server.mjs --port "$PORT" --rate "$RATE" --interval-ms "$INTERVAL_MS" 2>"$dir/server.log" &
  FEED_PID=$!
  await_port "$PORT" "feed server" "$dir/server.log"
  local load0; load0=$(loadavg)
  # The client registers its own PID with the server, then becomes the client (exec keeps the PID),
  # so the server's timeline starts before the client's first request.
  local watch="curl -sf -X POST '$url/watch?pid='\$\$ >/dev/null && exec"
  if [ "$who" = wrk ]; then
    taskset -c "$CLIENT_CPUS" bash -c "$watch wrk -t 1 -c $c -d ${secs}s --timeout 30s -s '$OUT/chat.lua' '$url/v1/chat/completions'" \
      >"$dir/client.log" 2>&1 || echo "wrk failed: see $dir/client.log" >&2
  else
    local opts=${TOKENMETER_JAVA_OPTS:-}
    [ "$who" = tokenmeter ] || opts="$opts $VARIANT_OPTS"
    TOKENMETER_JAVA_OPTS=$opts taskset -c "$CLIENT_CPUS" bash -c "$watch bench/client.sh bench --url '$url' --model feed --concurrency $c --event-loops $EVENT_LOOPS \
      --warmup 0s --duration ${secs}s --cooldown 0s --input-tokens 16 --output-tokens $OUTPUT_TOKENS -q --out '$dir'" \
      >"$dir/client.log" 2>&1 || echo "bench failed: see $dir/client.log" >&2
  fi
  local load1; load1=$(loadavg)
  curl -sf "$url/timeline" >"$dir/timeline.jsonl"
  stop_feed
  local r; r=$(node bench/feed-timeline.mjs <"$dir/timeline.jsonl") || { echo "$who: no timeline; see $dir" >&2; return 1; }
  # r: whole TPS CPUS STARTUP SECS steady TPS CPUS SECS jit WHOLE STEADY
  read -r _ wt wc st _ _ tt tc _ _ jw js <<<"$r"
  printf '%-10s c=%-4s %4ss | whole: %7.0f tokens/s, %6.2f CPU-s/Mtok (JIT %5.2f; start-up %5.2f CPU-s apart) | steady: %7.0f tokens/s, %6.2f CPU-s/Mtok (JIT %5.2f) | load %s -> %s\n' \
    "$who" "$c" "$secs" "$wt" "$wc" "$jw" "$st" "$tt" "$tc" "$js" "$load0" "$load1" | tee -a "$OUT/results.txt" >&2
  echo "$wt $wc $tt $tc"
}

# ratio NAME T_TPS T_COST W_TPS W_COST: the pair's ratio, or why there is none.
ratio() {
  awk -v n="$1" -v tt="$2" -v tc="$3" -v wt="$4" -v wc="$5" -v tol="$TOLERANCE" 'BEGIN {
    d = (tt > wt ? tt - wt : wt - tt) / (wt > 0 ? wt : 1)
    if (d > tol) printf "%s: no ratio, the feed differed (tokenmeter %.0f, wrk %.0f tokens/s, %.1f%% apart)", n, tt, wt, 100 * d
    else printf "%s %.2f (feed %.0f / %.0f tokens/s, %.1f%% apart)", n, tc / wc, tt, wt, 100 * d
  }'
}

for c in $CONCURRENCY; do
  for secs in $LENGTHS; do
    for rep in $(seq 1 "$REPEATS"); do
      # Alternate which client goes first, so a drift in the neighbours' load favours neither.
      if [ $((rep % 2)) = 1 ]; then order="wrk tokenmeter"; else order="tokenmeter wrk"; fi
      if [ -n "$VARIANT_OPTS" ]; then
        if [ $((rep % 2)) = 1 ]; then order="wrk tokenmeter variant"; else order="variant tokenmeter wrk"; fi
      fi
      declare -A res=()
      for who in $order; do
        dir="$OUT/$who-c$c-${secs}s-r$rep"
        mkdir -p "$dir"
        res[$who]=$(run "$who" "$c" "$secs" "$dir")
      done
      read -r twt twc ttt ttc <<<"${res[tokenmeter]}"
      read -r wwt wwc wtt wtc <<<"${res[wrk]}"
      echo "pair c=$c ${secs}s run $rep: tokenmeter / wrk CPU per token: $(ratio whole "$twt" "$twc" "$wwt" "$wwc"); $(ratio steady "$ttt" "$ttc" "$wtt" "$wtc")" |
        tee -a "$OUT/results.txt"
      if [ -n "$VARIANT_OPTS" ]; then
        read -r vwt vwc vtt vtc <<<"${res[variant]}"
        echo "pair c=$c ${secs}s run $rep: variant / wrk CPU per token: $(ratio whole "$vwt" "$vwc" "$wwt" "$wwc"); $(ratio steady "$vtt" "$vtc" "$wtt" "$wtc")" |
          tee -a "$OUT/results.txt"
      fi
      unset res
    done
  done
done
echo "results: $OUT/results.txt"
