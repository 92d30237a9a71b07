#!/usr/bin/env bash
# Prints the JAVA_HOME of a JDK whose major version is 24 or newer (Trino 476 refuses older
# ones), or exits 1. Looks at $TRINO_JAVA_HOME, then $JAVA_HOME, then every JDK under
# /usr/lib/jvm (the machine's Temurin beside Debian's OpenJDK 17), newest first.
set -euo pipefail

java_major() {
  # `java -version` prints e.g. 'openjdk version "25.0.1" 2025-10-21' on stderr.
  "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1
}

candidates=()
[[ -n "${TRINO_JAVA_HOME:-}" ]] && candidates+=("$TRINO_JAVA_HOME")
[[ -n "${JAVA_HOME:-}" ]] && candidates+=("$JAVA_HOME")
while IFS= read -r dir; do candidates+=("$dir"); done < <(ls -d /usr/lib/jvm/*/ 2>/dev/null | sed 's:/$::' | sort -V -r)

for home in "${candidates[@]}"; do
  [[ -x "$home/bin/java" && -x "$home/bin/javac" ]] || continue
  major=$(java_major "$home")
  if [[ -n "$major" && "$major" -ge 24 ]]; then
    echo "$home"
    exit 0
  fi
done
exit 1
