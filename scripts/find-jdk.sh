# Sourced by ./tokenmeter and .ci/run: sets TOKENMETER_JAVA_HOME to a JDK 21+ or explains what is missing.
# Order: $JAVA_HOME, the java on PATH, then the usual install folders (newest first).

_tm_java_major() { # prints the major version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

_tm_is_jdk21() { # $1 = a JAVA_HOME candidate; true when it has java and javac of release 21+ (sets TOKENMETER_JAVA_MAJOR)
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  local v; v=$(_tm_java_major "$1/bin/java")
  [ -n "$v" ] && [ "$v" -ge 21 ] && TOKENMETER_JAVA_MAJOR=$v
}

tm_find_jdk() {
  local c candidates=()
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  if command -v javac >/dev/null 2>&1; then
    c=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    candidates+=("$c")
  fi
  for c in $(ls -d /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
      "$HOME"/.jdks/* /Library/Java/JavaVirtualMachines/*/Contents/Home 2>/dev/null | sort -rV); do
    candidates+=("$c")
  done
  for c in "${candidates[@]}"; do
    if _tm_is_jdk21 "$c"; then
      TOKENMETER_JAVA_HOME="$c"
      return 0
    fi
  done
  {
    echo "tokenmeter needs a JDK 21 or newer (java and javac), and none was found."
    [ -n "${JAVA_HOME:-}" ] && echo "  JAVA_HOME=$JAVA_HOME is not a JDK 21+."
    command -v java >/dev/null 2>&1 && echo "  'java' on PATH is release $(_tm_java_major "$(command -v java)")."
    echo "  Looked in JAVA_HOME, PATH, /usr/lib/jvm, /usr/java, /opt/java, ~/.sdkman, ~/.jdks."
    echo "  Fix: install one (e.g. 'apt-get install openjdk-21-jdk', or Temurin 21 from adoptium.net)"
    echo "  and/or point JAVA_HOME at it: export JAVA_HOME=/path/to/jdk-21"
  } >&2
  return 1
}
