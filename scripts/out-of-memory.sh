#!/bin/sh
# Run by the JVM when the Java heap is exhausted (-XX:OnOutOfMemoryError, set by tm_java_opts in
# scripts/heap-for-run.sh): one line that names the limit and the fix, instead of the JVM's banner
# and stack traces, then ends the process at once (exit status 137: a run without heap can neither
# measure nor write its results).
# Arguments: the JVM's PID, the heap limit in force (-Xmx...), the launcher's own choice in MiB.
pid=$1 limit=$2 mb=$3
if [ "$limit" = "-Xmx${mb}m" ]; then
  fix="e.g. TOKENMETER_JAVA_OPTS=-Xmx$((mb * 4))m"
else
  fix="a larger -Xmx in TOKENMETER_JAVA_OPTS"
fi
echo "tokenmeter: out of memory: the Java heap limit $limit is too small for this run; rerun with $fix" >&2
kill -KILL "$pid"
