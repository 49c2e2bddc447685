#!/usr/bin/env bash
# Packs a Spack install made by install_cuda_with_offline_spack.sh for a GPU machine that has
# the CUDA runtime but neither Spack's configuration nor Debian's OpenBLAS, GSL and NLopt:
# OUT_DIR/pk-spack.tar.gz holds ROOT's install tree (RPATHs intact: it unpacks at the same
# absolute path), its Spack (without the 8000 builtin recipes: ROOT/builtin holds those the
# install reached) and configuration, the source snapshot (the recipes `spack test run` loads),
# and under ROOT/debian-libs the Debian libraries the installed programs load from /usr (ldd)
# but the GPU machine lacks; OUT_DIR/run-on-gpu.sh unpacks it there and runs it. An install
# on Debian's Open MPI (+mpi) also needs what Open MPI and PMIx load at run time by path, not
# through ldd (their plugins, help texts, orted): ROOT/debian-openmpi holds those at their
# paths under /, and the libraries the plugins need go to ROOT/debian-libs.
#   tests/spack/carry_install.sh ROOT OUT_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "usage: $0 ROOT OUT_DIR" >&2; exit 2; }
work=${1%/} out=$2
[ -d "$work/store" ] || { echo "$work has no install (store/)" >&2; exit 1; }
mkdir -p "$out" "$work/debian-libs"
scan=("$work/store")
rm -rf "$work/debian-openmpi"
# (ldd fails on scripts, and grep -q stops reading early: neither may decide the test.)
if { find "$work/store" -type f -perm -u+x -path '*/bin/*' -exec ldd {} + 2>/dev/null || true; } |
   grep -qE 'libmpi\.so.* => /(usr/)?lib/'; then
  openmpi=(/usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /usr/share/openmpi
           /usr/share/pmix /etc/openmpi /usr/bin/orted)
  mkdir -p "$work/debian-openmpi"
  for path in "${openmpi[@]}"; do
    [ ! -e "$path" ] || tar -cf - -C / "${path#/}" | tar -xf - -C "$work/debian-openmpi"
  done
  scan+=(/usr/lib/x86_64-linux-gnu/openmpi /usr/lib/x86_64-linux-gnu/pmix2 /usr/bin/orted)
  du -sh "$work/debian-openmpi"
fi
# The libraries that the programs and libraries of the install (and Open MPI's plugins)
# resolve to /usr (Debian's), but for the C/C++ runtime, which every Linux GPU machine has.
# CUDA comes from the machine.
{ find "${scan[@]}" -type f \( -perm -u+x -o -name '*.so*' \) -exec ldd {} + 2>/dev/null || true; } |
  awk '$2 == "=>" && $3 ~ /^\/(usr\/)?lib/ {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$work/debian-libs/"; done
ls "$work/debian-libs"
cp "$here/run_installed_on_gpu.sh" "$out/run-on-gpu.sh"
echo "$work" > "$out/root.txt"
parts=(store offline-spack builtin src scope config debian-libs)
[ ! -d "$work/debian-openmpi" ] || parts+=(debian-openmpi)
tar -czf "$out/pk-spack.tar.gz" -C / \
  --exclude="${work#/}/offline-spack/spack/var/spack/repos/builtin" \
  --exclude="${work#/}/offline-spack/spack/lib/spack/docs" \
  --exclude='spack-build-*' --exclude='__pycache__' \
  "${parts[@]/#/${work#/}/}"
du -h "$out/pk-spack.tar.gz"
