#!/usr/bin/env bash
# Exports the peers' sources at their pinned commits from local git repositories (clones or
# bare snapshots) into build/peers/src/<peer>, for a machine without the internet: carry
# build/peers/src there and the build scripts find it. Only the files the builds need are
# exported (no results, images, documentation beyond the licence, or BabelStream models this
# harness does not build): about 5 MB in all.
#   perf/peers/export_sources.sh DIR
# DIR holds one git repository per peer, named owner+name (as /work/.mirror does:
# ProjectPhysX+FluidX3D/repo or ProjectPhysX+FluidX3D) or name (FluidX3D); a peer not found
# there is skipped with a warning.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mirrors=${1:?usage: perf/peers/export_sources.sh DIR}
out=${PK_PEERS_BUILD:-$root/build/peers}/src
# peer  owner/name  pinned commit  paths to export
peers=(
  "fluidx3d ProjectPhysX/FluidX3D 8986874e626e0aebd317ab16c420b39e30dfa273 LICENSE.md makefile make.sh src"
  "rrze RRZE-HPC/lbm-benchmark-kernels 8b9da5650882cbbbeb02d7e0d48538975a2a9e0f COPYING LICENSE README src"
  "cubesselk stsds/CuBesselK 94ec9ca4bb9d7524c196f044503519ab30d8eb39 Makefile README.md include src"
  "gbeescuda Cx-Rubio/gbees-cuda ff885c0d9ae29b6c8123c27096f4820bcea5b0fc LICENSE README.md makefile src measurements"
  "gbeesc bhanson10/gbees c5657129eb50be3ff9c61d2b27a86adbf2fef215 LICENSE gbees.c gbees.h examples/Lorenz3D/Lorenz3D.c examples/Lorenz3D/Lorenz3D.h examples/Lorenz3D/makefile examples/Lorenz3D/measurements"
  "babelstream UoB-HPC/BabelStream 57637d572532fc028b6c0964944f1afc27ff5436 CMakeLists.txt LICENSE cmake src/main.cpp src/Stream.h src/StreamModels.h src/Unit.h src/benchmark.h src/dpl_shim.h src/omp src/cuda src/kokkos"
)
for line in "${peers[@]}"; do
  read -r name repo commit paths <<<"$line"
  git=""
  for candidate in "$mirrors/${repo/\//+}/repo" "$mirrors/${repo/\//+}" "$mirrors/${repo#*/}"; do
    if git -C "$candidate" rev-parse -q --verify "$commit^{commit}" >/dev/null 2>&1; then git=$candidate; break; fi
  done
  if [ -z "$git" ]; then echo "export_sources: no repository with $repo at $commit under $mirrors: skipped" >&2; continue; fi
  rm -rf "${out:?}/$name" && mkdir -p "$out/$name"
  # File by file (git archive stops at blobs a snapshot lacks, such as FluidX3D's skybox).
  # shellcheck disable=SC2086
  git -C "$git" ls-tree -r --format='%(objectmode) %(path)' "$commit" -- $paths | while read -r mode path; do
    mkdir -p "$out/$name/$(dirname "$path")"
    git -C "$git" cat-file blob "$commit:$path" >"$out/$name/$path"
    [ "$mode" != 100755 ] || chmod +x "$out/$name/$path"
  done
  echo "$commit" >"$out/$name/.pk-peer-commit"
  echo "export_sources: $name ($repo $commit): $(du -sh "$out/$name" | cut -f1)" >&2
done
