#!/usr/bin/env bash
# RRZE-HPC lbm-benchmark-kernels (C99 + OpenMP, GPLv3): lbmbenchk in double (dp) and single
# (sp) precision, with its own makefile (CONFIG=linux-gcc, release, benchmark mode).
# The one change: GCC >= 9 no longer treats const variables as predetermined shared, so its
# `default(none)` clauses fail to compile ("not specified in enclosing 'parallel'"); they
# become `default(shared)` (a sed over the copy; no code of the peer is kept here). The diff
# it makes is saved as build/peers/rrze/default-shared.diff, beside the build record.
#   perf/peers/rrze/build.sh   (source: PK_PEER_RRZE_SRC; PK_PEER_RRZE_TARCH, default -march=native)
# Binaries: build/peers/rrze/{dp,sp}/bin/lbmbenchk-linux-gcc-release-{dp,sp}.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"
peer_source rrze RRZE-HPC/lbm-benchmark-kernels 8b9da5650882cbbbeb02d7e0d48538975a2a9e0f PK_PEER_RRZE_SRC
tarch=${PK_PEER_RRZE_TARCH:--march=native}
for precision in dp sp; do
  peer_work rrze "$precision"
  grep -rl 'default(none)' "$peer_dir/src" | xargs sed -i 's/default(none)/default(shared)/g'
  peer_say "rrze: building $precision in $peer_dir"
  make -s -C "$peer_dir/src" -j"$peers_jobs" CONFIG=linux-gcc BUILD=release PRECISION=$precision TARCH="$tarch" \
    >"$peer_dir/build.log" 2>&1 ||
    { tail -20 "$peer_dir/build.log"; peer_die "rrze $precision did not build (log: $peer_dir/build.log)"; }
  [ -x "$peer_dir/bin/lbmbenchk-linux-gcc-release-$precision" ] || peer_die "rrze $precision: no binary"
done
(cd "$peers_build/rrze" && diff -ru "$peer_src/src" dp/src -x obj -x '*.d' -x '*.o' | grep -v '^Only in' || true) \
  >"$peers_build/rrze/default-shared.diff"
flags="$(sed -n 's/^ *C_FLAGS *+= *//p' "$peer_src/src/config.linux-gcc.mk" | head -1 | sed "s|\$(TARCH)|$tarch|")"
peer_info rrze "make=make CONFIG=linux-gcc BUILD=release PRECISION=dp|sp TARCH=$tarch" "flags=$flags -fopenmp -std=c99" \
  "compiler=$(gcc --version | head -1)" "patch=sed s/default(none)/default(shared)/ (default-shared.diff)" \
  "binary_dp=rrze/dp/bin/lbmbenchk-linux-gcc-release-dp" \
  "binary_sp=rrze/sp/bin/lbmbenchk-linux-gcc-release-sp"
