#!/usr/bin/env bash
# Runs clang-tidy with .clang-tidy's checks on every C++ source file changed
# since .clang-format was added, one process per core, skipping files that
# passed before unchanged (below); CI runs it. Needs `bazel build //...`
# first for generated headers.
#
#   tools/check_tidy.sh [FILE.cc ...]     # exit 1 if a check fails
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v clang-tidy >/dev/null || { echo "check_tidy: clang-tidy is missing (tools/setup.sh)" >&2; exit 1; }

if [ $# -gt 0 ]; then
  files=("$@")
else
  baseline=$(git log --diff-filter=A --format=%H -- .clang-format | tail -n 1)
  mapfile -t files < <( (git diff --name-only "$baseline" -- '*.cc';
                         git ls-files --others --exclude-standard -- '*.cc') | sort -u)
fi

# The compiler flags. The -D flags: Debian's cpp-httplib is built with them,
# and its users define them too (//third_party:httplib).
flags=(-x c++ -std=c++17 -I. -Ibazel-bin
  -isystem /usr/include/torch/csrc/api/include -isystem /usr/include/python3.11
  -DCPPHTTPLIB_OPENSSL_SUPPORT -DCPPHTTPLIB_ZLIB_SUPPORT -DCPPHTTPLIB_BROTLI_SUPPORT)

# A file that passed is remembered (as CI's compiles are, in the disk cache
# under the home directory) by the hash of its text, the text of the project
# headers it includes (directly or through other project headers), the
# flags, .clang-tidy and clang-tidy's version: it is checked again only when
# one of them changes, so a header's change rechecks only its includers.
passed_dir=${STATIC_RUNTIME_TIDY_CACHE:-$HOME/.cache/static_runtime/tidy-passed}
mkdir -p "$passed_dir"
context=$( (clang-tidy --version; cat .clang-tidy; echo "${flags[*]}") | sha256sum | cut -d' ' -f1)
export passed_dir context
export flags_text="${flags[*]}"

# The project headers `file` includes, directly or not, one per line, sorted.
included_headers() {
  local -A seen=()
  local frontier=("$1") header next
  while [ "${#frontier[@]}" -gt 0 ]; do
    next=()
    while read -r header; do
      [ -f "$header" ] && [ -z "${seen[$header]:-}" ] || continue
      seen[$header]=1
      next+=("$header")
    done < <(sed -nE 's/^#include "([^"]+)".*/\1/p' "${frontier[@]}")
    frontier=("${next[@]}")
  done
  [ "${#seen[@]}" -eq 0 ] || printf '%s\n' "${!seen[@]}" | sort
}

# Checks one file; prints its name and first findings if a check fails.
tidy_one() {
  local file=$1 out stamp header
  stamp="$passed_dir/$( (echo "$context"; cat "$file"
    while read -r header; do echo "== $header"; cat "$header"; done < <(included_headers "$file")) |
    sha256sum | cut -d' ' -f1)"
  [ -e "$stamp" ] && return 0
  # A file named *_avx512.cc is compiled with AVX-512 flags (its headers,
  # such as sleef.h, declare the 512-bit functions only then).
  local isa_flags=""
  case "$file" in *_avx512.cc) isa_flags="-mavx512f -mavx512bw -mavx512vl -mavx512dq -mfma" ;; esac
  # shellcheck disable=SC2086  # one flag per word
  if ! out=$(clang-tidy --quiet "$file" -- $flags_text $isa_flags 2>&1); then
    echo "FAILED $file"
    grep -E "error:|warning:" <<<"$out" | head -n 5
  else
    touch "$stamp"
  fi
}
export -f included_headers
export -f tidy_one

# The Python extension needs CPython's headers; libFuzzer targets clang's.
to_check=()
for file in "${files[@]}"; do
  [ -f "$file" ] || continue
  case "$file" in fuzz/*_fuzzer.cc) continue ;; esac
  to_check+=("$file")
done
[ "${#to_check[@]}" -gt 0 ] || { echo "check_tidy: no changed C++ files"; exit 0; }

report=$(printf '%s\0' "${to_check[@]}" | xargs -0 -n 1 -P "$(nproc)" bash -c 'tidy_one "$1"' _)
if grep -q '^FAILED ' <<<"$report"; then
  echo "$report" >&2
  echo "check_tidy: .clang-tidy's checks fail in: $(grep '^FAILED ' <<<"$report" | cut -d' ' -f2 | tr '\n' ' ')" >&2
  exit 1
fi
echo "check_tidy: ${#to_check[@]} changed C++ files pass .clang-tidy's checks"
