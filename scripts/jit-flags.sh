# Sourced by ./tokenmeter and bench/client.sh: sets TM_JIT_FLAGS, HotSpot flags for the client's
# read path. No dependencies.
#
# The JSON scanner's loops (JsonCursor: white space, strings, skipped values) are called from a
# few dozen places; C2 inlined every copy into each compiled root (the pipeline's fireChannelRead,
# SseFramer.processLine, ChunkScanner.root, ...), and those compilations took seconds each: 22-24 s
# of C2 time per 25 s zero-delay bench at 256 streams, inside the measured window (docs/PERFORMANCE.md
# §8). Compiled once each and called instead: 13 s. `quiet` first, or the JVM prints each command.
# CompileCommandsTest checks that every method named here exists.
TM_JIT_FLAGS="-XX:CompileCommand=quiet
  -XX:CompileCommand=dontinline,dev.tokenmeter.client.JsonCursor::skipWhitespace
  -XX:CompileCommand=dontinline,dev.tokenmeter.client.JsonCursor::string
  -XX:CompileCommand=dontinline,dev.tokenmeter.client.JsonCursor::skip"
