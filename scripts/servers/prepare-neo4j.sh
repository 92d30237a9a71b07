#!/usr/bin/env bash
# Builds the throwaway Neo4j test server (test/servers/neo4j-harness): compiles the launcher and
# copies every runtime jar to target/lib, so each test start is a plain `java -cp` with no Maven
# resolution. Needs Java 17+ and Maven; downloads neo4j-harness from Maven Central on first run
# (cached in ~/.m2 afterwards). Safe to run repeatedly; skips the build when it is up to date.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
project="$root/test/servers/neo4j-harness"
stamp="$project/target/.built"

for tool in java mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "prepare-neo4j: $tool not installed; Neo4j connector tests will not run" >&2
    exit 1
  fi
done

if [[ -f "$stamp" && "$stamp" -nt "$project/pom.xml" ]] \
  && [[ -z "$(find "$project/src" -newer "$stamp" -type f -print -quit)" ]]; then
  echo "prepare-neo4j: up to date ($project/target)"
  exit 0
fi

started=$(date +%s)
mvn -q -B -Dstyle.color=never -f "$project/pom.xml" -DskipTests package
touch "$stamp"
echo "prepare-neo4j: built in $(( $(date +%s) - started )) s ($(ls "$project/target/lib" | wc -l) jars in target/lib)"
