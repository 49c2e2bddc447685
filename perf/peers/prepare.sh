#!/usr/bin/env bash
# On a machine with the internet or the snapshots, before carrying the repository to one without:
# the peers' sources at their pinned commits into build/peers/src (from DIR, a folder of git
# repositories as perf/peers/export_sources.sh takes, or cloned from GitHub without DIR) and
# Debian's OpenCL ICD loader package into build/peers/debs, and, with PK_PEERS_KOKKOS naming a
# Kokkos install (e.g. the project's CUDA one, ~/.cache/portablekernels/kokkos-4.6.01-cuda-*),
# a copy of it in build/peers/kokkos for BabelStream's Kokkos model (14 MB; it relocates).
# Carry build/peers/src, build/peers/debs (about 5 MB) and build/peers/kokkos, not the rest of
# build/peers (binaries built for this CPU).
#   [PK_PEERS_KOKKOS=DIR] perf/peers/prepare.sh [DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
peers=${PK_PEERS_BUILD:-$root/build/peers}
if [ $# -gt 0 ]; then
  "$here/export_sources.sh" "$1"
else
  for p in fluidx3d rrze cubesselk babelstream gbeescuda gbeesc; do  # each build script clones at its pinned commit
    rm -rf "$peers/src/$p"
  done
  mkdir -p "$peers/src"
  clones=$(mktemp -d)
  trap 'rm -rf "$clones"' EXIT
  for repo in ProjectPhysX/FluidX3D RRZE-HPC/lbm-benchmark-kernels stsds/CuBesselK UoB-HPC/BabelStream Cx-Rubio/gbees-cuda bhanson10/gbees; do
    git clone -q --filter=blob:none "https://github.com/$repo" "$clones/${repo/\//+}"
  done
  "$here/export_sources.sh" "$clones"
fi
mkdir -p "$peers/debs"
if ! ls "$peers"/debs/ocl-icd-libopencl1_*.deb >/dev/null 2>&1; then
  (cd "$peers/debs" && apt-get download ocl-icd-libopencl1) || echo "prepare: could not download ocl-icd-libopencl1" >&2
fi
if [ -n "${PK_PEERS_KOKKOS:-}" ]; then
  [ -f "$PK_PEERS_KOKKOS/include/KokkosCore_config.h" ] || { echo "prepare: $PK_PEERS_KOKKOS is not a Kokkos install" >&2; exit 1; }
  rm -rf "$peers/kokkos" && cp -a "$PK_PEERS_KOKKOS" "$peers/kokkos"
fi
du -sh "$peers/src" "$peers/debs" ${PK_PEERS_KOKKOS:+"$peers/kokkos"}
