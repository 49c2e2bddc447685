#!/usr/bin/env bash
# GBEES in C (bhanson10/gbees, serial, BSD-3): its example Lorenz3D (the GBEES paper's Lorenz '63
# case: sigma 4, beta 1, r 48, N([-11.5,-10,9.5], I), h = std/2, p* = 1e-7, z = -8 at t = 1, to
# t = 2) with its makefile's `link` target. Its makefile's RELEASE flags have no optimisation
# level (gcc's -O0): built with them plus -O3 -march=native (PK_PEER_GBEESC_OPT), said in the
# record. gbeesc.patch: RECORD off (no PDF files written inside its timed loop). Its makefile
# links LAPACKE (used only for a rotated grid, off here): where no LAPACKE links (no lapacke.h,
# or a liblapacke newer than its liblapack), perf/peers/gbeesc/lapacke stands in. It reads ./measurements, so it runs in its example folder.
#   perf/peers/gbeesc/build.sh   (source: PK_PEER_GBEESC_SRC)
# Binary: build/peers/gbeesc/work/examples/Lorenz3D/Lorenz3D.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../common.sh"
peer_source gbeesc bhanson10/gbees c5657129eb50be3ff9c61d2b27a86adbf2fef215 PK_PEER_GBEESC_SRC
peer_work gbeesc work
peer_patch "$here/gbeesc.patch"
flags="-pedantic -Wall -std=c99 -D_GNU_SOURCE -fPIC ${PK_PEER_GBEESC_OPT--O3 -march=native}"
ldflags="" lapacke=system
probe=$(printf '%s\n' '#include <lapacke.h>' \
  "int main(void) { double a = 1, w; return LAPACKE_dsyev(LAPACK_ROW_MAJOR, 'N', 'U', 1, &a, 1, &w); }")
# Linked as its makefile links (-lm -llapacke): with -llapack added the probe can pass where the
# makefile's link then fails (an image whose liblapacke needs a symbol only another LAPACK has).
if ! echo "$probe" | gcc -x c - -o "$peer_dir/lapacke-probe" -lm -llapacke >/dev/null 2>&1; then
  lapacke="stand-in perf/peers/gbeesc/lapacke (no LAPACKE links here)"
  mkdir -p "$peer_dir/lapacke"
  gcc -O2 -I"$here/lapacke" -c "$here/lapacke/lapacke.c" -o "$peer_dir/lapacke/lapacke.o"
  ar rcs "$peer_dir/lapacke/liblapacke.a" "$peer_dir/lapacke/lapacke.o"
  flags="$flags -I$here/lapacke" ldflags="-L$peer_dir/lapacke"
fi
peer_say "gbeesc: building Lorenz3D ($flags; LAPACKE: $lapacke)"
make -C "$peer_dir/examples/Lorenz3D" link CFLAGS="$flags" LDFLAGS="$ldflags" >"$peer_dir/build.log" 2>&1 ||
  { tail -20 "$peer_dir/build.log"; peer_die "gbeesc did not build (log: $peer_dir/build.log)"; }
[ -x "$peer_dir/examples/Lorenz3D/Lorenz3D" ] || peer_die "gbeesc: no Lorenz3D"
cp "$here/gbeesc.patch" "$peers_build/gbeesc/"
peer_info gbeesc "flags=$flags" "makefile_release_flags=-pedantic -Wall -std=c99 -D_GNU_SOURCE -fPIC (no -O)" \
  "compiler=$(gcc --version | head -1)" "lapacke=$lapacke" "patch=gbeesc.patch" \
  "binary_lorenz3d=gbeesc/work/examples/Lorenz3D/Lorenz3D" "cwd_lorenz3d=gbeesc/work/examples/Lorenz3D"
