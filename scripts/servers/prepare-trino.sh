#!/usr/bin/env bash
# Builds the throwaway Trino test server (test/servers/trino-harness): compiles the launcher and
# copies every runtime jar to target/lib (about 200 jars, 145 MB), so each test start is a plain
# `java -cp` with no Maven resolution. Trino 476 needs Java 24 or newer (found by
# find-java24.sh; the machine's Temurin JDK), set for this build and written to
# target/java-home for the tests; Maven itself may run on any JDK. Downloads trino-testing from
# Maven Central on the first run (cached in ~/.m2 afterwards). Skips the build when up to date.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
project="$root/test/servers/trino-harness"
stamp="$project/target/.built"

if ! command -v mvn >/dev/null 2>&1; then
  echo "prepare-trino: mvn not installed; Trino connector tests will not run" >&2
  exit 1
fi
if ! java_home=$("$root/scripts/servers/find-java24.sh"); then
  echo "prepare-trino: no JDK 24 or newer found (set TRINO_JAVA_HOME); Trino connector tests will not run" >&2
  exit 1
fi

if [[ -f "$stamp" && "$stamp" -nt "$project/pom.xml" ]] \
  && [[ -z "$(find "$project/src" -newer "$stamp" -type f -print -quit)" ]] \
  && [[ "$(cat "$project/target/java-home" 2>/dev/null)" == "$java_home" ]]; then
  echo "prepare-trino: up to date ($project/target, Java at $java_home)"
  exit 0
fi

started=$(date +%s)
rm -rf "$project/target/lib"
JAVA_HOME="$java_home" mvn -q -B -Dstyle.color=never -f "$project/pom.xml" -DskipTests package
printf '%s\n' "$java_home" >"$project/target/java-home"
touch "$stamp"
echo "prepare-trino: built in $(( $(date +%s) - started )) s with Java at $java_home ($(ls "$project/target/lib" | wc -l) jars in target/lib)"
