#!/bin/sh
# weekly-report.sh — write last week's report of what agents tried and
# failed to say, as Markdown, next to the previous ones.
#
#   DIALECT_DB     the runtime's SQLite file (default: XDG state dir)
#   REPORT_DIR     where reports go (default: ./reports)
#   DIALECT        the dialect binary (default: dialect on $PATH)
#
# Exit status is dialect's: 0 ok, 1 a failure of the work, 2 bad usage or
# configuration.
set -eu

dialect=${DIALECT:-dialect}
dir=${REPORT_DIR:-./reports}
mkdir -p "$dir"
out="$dir/dialect-$(date -u +%Y-%m-%d).md"
tmp="$out.tmp"

# Write to a temporary file first, so that a failed run leaves no half
# report behind.
"$dialect" report --since 7d --format md > "$tmp"
mv "$tmp" "$out"
echo "$out"
