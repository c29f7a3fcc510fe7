#!/usr/bin/env bash
# Debian 12's spirv-val (SPIRV-Tools v2023.1) predates SPV_KHR_cooperative_matrix,
# which Vulkan kernels with cooperative-matrix dots use. This fetches SPIRV-Tools
# from Debian 13 (trixie), with the C and C++ runtime it was built against, into
# DEST, and writes DEST/bin/spirv-val, which runs it through that runtime's own
# loader. Nothing outside DEST changes. The tests use DEST/bin/spirv-val where it
# exists (docs/building.md); without it they validate with the system's spirv-val
# and report cooperative-matrix kernels as compiled but not validated.
#
# Usage: scripts/fetch-spirv-tools.sh DEST
# Environment: TESSERA_DEBIAN_MIRROR (default https://deb.debian.org/debian)
set -euo pipefail

# The wrapper names its files by absolute paths: tests run it from anywhere.
dest=$(realpath -m "${1:?usage: fetch-spirv-tools.sh DEST}")
validator=$dest/bin/spirv-val

if [ -x "$validator" ] && (cd / && "$validator" --version) >/dev/null 2>&1; then
  exit 0
fi
if [ "$(dpkg --print-architecture 2>/dev/null)" != amd64 ]; then
  echo "fetch-spirv-tools: only amd64 is supported" >&2
  exit 1
fi

mirror=${TESSERA_DEBIAN_MIRROR:-https://deb.debian.org/debian}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

curl -fsSL "$mirror/dists/trixie/main/binary-amd64/Packages.xz" | xz -dc > "$work/Packages"
for package in spirv-tools libc6 libstdc++6 libgcc-s1; do
  # The stanza's Filename and SHA256 (Filename comes first).
  read -r file sha256 < <(awk -v want="$package" '
    $1 == "Package:" { hit = ($2 == want) }
    hit && $1 == "Filename:" { file = $2 }
    hit && $1 == "SHA256:" { print file, $2; exit }' "$work/Packages") \
    || { echo "fetch-spirv-tools: $package is not in trixie's index" >&2; exit 1; }
  curl -fsSL -o "$work/$package.deb" "$mirror/$file"
  echo "$sha256  $work/$package.deb" | sha256sum --check --quiet
  dpkg-deb --extract "$work/$package.deb" "$work/root"
done

rm -rf "$dest"
mkdir -p "$dest/bin"
mv "$work/root" "$dest/root"
libs=$dest/root/usr/lib/x86_64-linux-gnu
cat > "$validator" <<EOF
#!/bin/sh
# spirv-val of Debian 13's SPIRV-Tools, on the runtime it was built against.
exec "$libs/ld-linux-x86-64.so.2" --library-path "$libs" "$dest/root/usr/bin/spirv-val" "\$@"
EOF
chmod +x "$validator"
"$validator" --version | head -1
