#!/usr/bin/env bash
# FluidX3D (OpenCL; its benchmark setup, D3Q19 SRT, a fully periodic cube) in two builds:
# FP16S storage (the repository's default) and FP32 (FP16S off). fluidx3d.patch reads the
# lattice edge (PK_PEER_N, default 256) and the number of 10-step loops (PK_PEER_LOOPS,
# default 1000) from the environment, prints the mean over all timed steps beside FluidX3D's
# own "Peak MLUPs/s", and adds -DPK_PEER_FP32 to switch FP16S off. Built with FluidX3D's
# makefile and flags (g++ -std=c++17 -pthread -O, its bundled OpenCL stub); at run time it
# needs an OpenCL ICD loader and a vendor ICD (perf/peers/opencl_env.sh).
#   perf/peers/fluidx3d/build.sh    (source: PK_PEER_FLUIDX3D_SRC, see perf/peers/common.sh)
# Binaries: build/peers/fluidx3d/{fp16s,fp32}/bin/FluidX3D.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"
peer_source fluidx3d ProjectPhysX/FluidX3D 8986874e626e0aebd317ab16c420b39e30dfa273 PK_PEER_FLUIDX3D_SRC
flags="-std=c++17 -pthread -O -Wno-comment"
for variant in fp16s fp32; do
  peer_work fluidx3d "$variant"
  peer_patch "$here/fluidx3d.patch"
  extra=""
  [ "$variant" = fp32 ] && extra=" -DPK_PEER_FP32"
  peer_say "fluidx3d: building $variant in $peer_dir"
  make -s -C "$peer_dir" -j"$peers_jobs" Linux CFLAGS="$flags$extra" >"$peer_dir/build.log" 2>&1 ||
    { tail -20 "$peer_dir/build.log"; peer_die "fluidx3d $variant did not build (log: $peer_dir/build.log)"; }
  [ -x "$peer_dir/bin/FluidX3D" ] || peer_die "fluidx3d $variant: no bin/FluidX3D"
done
cp "$here/fluidx3d.patch" "$peers_build/fluidx3d/"
peer_info fluidx3d "flags_fp16s=$flags" "flags_fp32=$flags -DPK_PEER_FP32" "compiler=$(g++ --version | head -1)" \
  "patch=fluidx3d.patch" "binary_fp16s=fluidx3d/fp16s/bin/FluidX3D" \
  "binary_fp32=fluidx3d/fp32/bin/FluidX3D"
