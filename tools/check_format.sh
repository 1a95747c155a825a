#!/usr/bin/env bash
# Checks that every C++ file of the repository (tracked or untracked, not
# ignored) is formatted as .clang-format says; CI runs it.
#
#   tools/check_format.sh          # exit 1 and the files to format if any
#   tools/check_format.sh --fix    # format them in place
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

fix=false
[ "${1:-}" = "--fix" ] && fix=true
command -v clang-format >/dev/null || { echo "check_format: clang-format is missing (tools/setup.sh)" >&2; exit 1; }

files=$( (git ls-files -- '*.cc' '*.h'; git ls-files --others --exclude-standard -- '*.cc' '*.h') | sort -u)

unformatted=()
for file in $files; do
  [ -f "$file" ] || continue  # deleted since
  if $fix; then
    clang-format -i "$file"
  elif ! clang-format --dry-run --Werror "$file" >/dev/null 2>&1; then
    unformatted+=("$file")
  fi
done
if [ "${#unformatted[@]}" -gt 0 ]; then
  echo "check_format: not formatted as .clang-format says (tools/check_format.sh --fix):" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "check_format: $(echo "$files" | grep -c . || true) C++ files formatted"
