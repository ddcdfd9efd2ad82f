#!/usr/bin/env bash
# The tokenmeter client as ./tokenmeter runs it (same JVM flags), or from CLIENT_JAR when set, to
# compare two builds side by side in one session. Replaces itself with the JVM (same PID).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${CLIENT_JAR:-}" ]; then
  exec ./tokenmeter "$@"
fi
. scripts/find-jdk.sh
tm_find_jdk
# shellcheck disable=SC2086
exec "$TOKENMETER_JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -XX:+UseParallelGC -Xss512k -Dio.netty.leakDetection.level=disabled \
  ${TOKENMETER_JAVA_OPTS:-} -jar "$CLIENT_JAR" "$@"
