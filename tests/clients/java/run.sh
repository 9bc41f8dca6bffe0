#!/usr/bin/env bash
# Compiles Scenario.java with javac against Debian's Java driver 3.6
# (/usr/share/java/mongo-java-driver.jar: bson, core and the sync driver) and
# runs it with java on the same classpath.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v javac >/dev/null && command -v java >/dev/null ||
  { echo "java scenario: FAIL: no javac/java (Debian default-jdk-headless)" >&2; exit 127; }
jar=/usr/share/java/mongo-java-driver.jar
[[ -f $jar ]] || { echo "java scenario: FAIL: $jar missing (Debian libmongodb-java)" >&2; exit 127; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -Xlint:-options -d "$out" -cp "$jar" "$here/Scenario.java"
java -cp "$jar:$out" Scenario
