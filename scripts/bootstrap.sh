#!/usr/bin/env bash
# Sets up everything Tessera needs on Debian 12 and builds it into build/.
#
# Idempotent: packages already present are not fetched again, and a built tree
# is only brought up to date, so running it again takes seconds.
#
# Environment:
#   TESSERA_BUILD_TYPE   Release (default) or Debug
#   TESSERA_JOBS         parallel build jobs (default: number of cores)
#   TESSERA_SKIP_TORCH=1 do not install PyTorch (only the PyTorch interop tests need it)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"

say() { printf '\033[1m[bootstrap]\033[0m %s\n' "$*"; }
die() { printf '[bootstrap] error: %s\n' "$*" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  die "installing packages needs root (or sudo)"
fi

[ -r /etc/debian_version ] || die "this script targets Debian 12 (bookworm); see docs/building.md for other systems"

# System packages. LLVM/MLIR 22 come from bookworm-security.
apt_packages=(
  build-essential cmake ninja-build ccache git pkg-config curl xz-utils ca-certificates
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22 clang-22
  spirv-tools libvulkan-dev mesa-vulkan-drivers vulkan-tools
  rocm-device-libs
  libfmt-dev pybind11-dev python3-dev python3-pip python3-venv
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenblas-dev libdnnl-dev libsqlite3-dev
)
missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${#missing[@]} system package(s): ${missing[*]}"
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
else
  say "system packages: all ${#apt_packages[@]} present"
fi

# Python packages from PyPI, for the Python package and the test suite.
# torch is pinned: an unpinned torch would pull gigabytes of CUDA wheels.
# Debian's own python3 refuses pip installs (PEP 668): there the packages go
# into a virtual environment, .venv/, which the build then uses.
python=${PYTHON:-python3}
if "$python" -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
  [ -x .venv/bin/python ] || { say "creating .venv/ (the system Python is externally managed)"; "$python" -m venv --system-site-packages .venv; }
  python=$repo/.venv/bin/python
fi
python_packages=(numpy pytest)
[ "${TESSERA_SKIP_TORCH:-0}" = 1 ] || python_packages+=("torch==2.13.0")
python_missing=()
for requirement in "${python_packages[@]}"; do
  module=${requirement%%=*}
  "$python" -c "import $module" 2>/dev/null || python_missing+=("$requirement")
done
if [ ${#python_missing[@]} -gt 0 ]; then
  say "installing Python package(s): ${python_missing[*]}"
  "$python" -m pip install --quiet "${python_missing[@]}"
else
  say "Python packages: ${python_packages[*]} present"
fi

[ -x /usr/local/cuda/bin/ptxas ] \
  || say "note: /usr/local/cuda/bin/ptxas not found: NVIDIA code generation checks will be skipped"

# Configure once (or again if the cache belongs to another checkout), then build.
build_type=${TESSERA_BUILD_TYPE:-Release}
if [ ! -f build/build.ninja ] || ! grep -q "CMAKE_HOME_DIRECTORY:INTERNAL=$repo\$" build/CMakeCache.txt 2>/dev/null; then
  say "configuring build/ ($build_type)"
  rm -rf build
  cmake --preset default -DCMAKE_BUILD_TYPE="$build_type" -DTESSERA_PYTHON="$(command -v "$python")" -Wno-dev
fi
# A spirv-val that knows cooperative matrices, for the tests: Debian 12's is
# too old (scripts/fetch-spirv-tools.sh says why). Optional.
scripts/fetch-spirv-tools.sh build/tools/spirv-tools >/dev/null \
  || say "note: could not fetch SPIRV-Tools from Debian 13: cooperative-matrix SPIR-V will be compiled but not validated"
say "building"
cmake --build build -j "${TESSERA_JOBS:-$(nproc)}"

# The Python package in build/python, importable from that Python without
# PYTHONPATH (a .pth file; `pip install .` is the alternative).
site=$("$python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
if [ -d build/python/tessera ] && [ -w "$site" ]; then
  echo "$repo/build/python" > "$site/tessera-build.pth"
  say "python: 'import tessera' now loads $repo/build/python/tessera"
elif [ -d build/python/tessera ]; then
  say "note: cannot write to $site: use PYTHONPATH=$repo/build/python"
fi
say "done: build/bin/tessera and build/bin/tessera-opt are ready"
