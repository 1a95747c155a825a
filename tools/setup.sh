#!/usr/bin/env bash
# Installs the Debian 12 packages static_runtime builds and tests with, and only
# those that are missing. Idempotent: when everything is present it changes
# nothing, runs no apt-get at all and finishes in well under a second.
#
# Usage: tools/setup.sh            (as root, or with sudo available)
set -euo pipefail

# package -> why we need it
PACKAGES=(
  bazel-bootstrap        # Bazel 4.2.3, the build system
  libtorch-dev           # LibTorch 1.13 (CPU): ATen, c10, the TorchScript JIT
  libabsl-dev            # Abseil: status, strings, containers, flags
  libgtest-dev           # GoogleTest
  libgmock-dev           # GoogleMock
  libbenchmark-dev       # Google Benchmark
  libgoogle-glog-dev     # glog (LibTorch is built with it)
  libgflags-dev          # gflags (glog's flags)
  librapidcheck-dev      # RapidCheck property-based testing (+ gtest glue)
  libopenblas0-pthread   # fast BLAS behind LibTorch's libblas.so.3
  zlib1g-dev             # zlib: checking model archives before LibTorch reads them
  clang                  # libFuzzer builds (--config=fuzz)
  clang-format           # tools/check_format.sh (CI): the house style
  clang-tidy             # tools/check_tidy.sh (CI): .clang-tidy's checks
  libclang-rt-14-dev     # clang's sanitizer and libFuzzer runtimes
  libdnnl-dev            # oneDNN 2.6 headers: convolutions with pre-packed weights
  libsleef-dev           # SLEEF header: ATen's Vectorized<float> math in our LSTM step
  nlohmann-json3-dev     # nlohmann/json (header-only): sr's JSON reports, sr gate
  python3-torch          # Python tests and the Python package (libtorch_python)
  python3-torchvision    # Python tests: torchvision models
  python3-torchaudio     # the broad benchmark corpus: torchaudio models
  python3-torchtext      # the broad benchmark corpus: torchtext models (plain PyTorch code)
  python3-dev            # the Python package: CPython headers
  pybind11-dev           # the Python package: pybind11
  python3-venv           # the wheel's test installs it into a fresh venv
  python3-pip            # pip, which installs the wheel
  libssl-dev             # OpenSSL's SHA-256: model package keys and checksums
  libgrpc++-dev          # sr serve: gRPC 1.51 (the Open Inference Protocol's gRPC transport)
  libprotobuf-dev        # sr serve: protobuf messages of the protocol
  protobuf-compiler      # protoc: C++ and Python code from server/open_inference.proto
  protobuf-compiler-grpc # grpc_cpp_plugin, grpc_python_plugin: the service's stubs
  libcpp-httplib-dev     # sr serve: the protocol's HTTP/REST transport (cpp-httplib 0.11)
  libbrotli-dev          # cpp-httplib's headers include brotli's (Debian builds it with it)
  python3-grpcio         # server tests: an independent gRPC client
  python3-protobuf       # server tests: the protocol's messages in Python
  openssl                # server tests: a self-signed certificate for the TLS test
)

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

installed() {
  [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = "installed" ]
}

missing=()
for package in "${PACKAGES[@]}"; do
  installed "$package" || missing+=("$package")
done

if [ "${#missing[@]}" -eq 0 ]; then
  say "all ${#PACKAGES[@]} required Debian packages are installed"
  exit 0
fi

say "missing Debian packages: ${missing[*]}"

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO=(sudo -n)
  else
    die "installing packages needs root: run 'sudo tools/setup.sh' (missing: ${missing[*]})"
  fi
fi

export DEBIAN_FRONTEND=noninteractive

# Refresh the package lists once, only if some package is unknown to apt.
updated=0
update_once() {
  [ "$updated" -eq 1 ] && return 0
  say "running apt-get update"
  "${SUDO[@]}" apt-get update -qq || die "apt-get update failed (is a Debian mirror reachable?)"
  updated=1
}

need_update=0
for package in "${missing[@]}"; do
  apt-cache show "$package" >/dev/null 2>&1 || need_update=1
done
if [ "$need_update" -eq 1 ]; then
  update_once
  for package in "${missing[@]}"; do
    apt-cache show "$package" >/dev/null 2>&1 ||
      die "package '$package' was not found in the configured Debian repositories"
  done
fi

say "installing: ${missing[*]}"
if ! "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  [ "$updated" -eq 0 ] || die "apt-get install failed for: ${missing[*]}"
  say "install failed with stale package lists; retrying once after an update"
  update_once
  "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
    die "apt-get install failed for: ${missing[*]}"
fi

for package in "${missing[@]}"; do
  installed "$package" || die "package '$package' is still not installed"
done
say "done: installed ${#missing[@]} package(s)"
