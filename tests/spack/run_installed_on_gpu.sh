#!/usr/bin/env bash
# On a GPU machine, beside pk-spack.tar.gz and root.txt (tests/spack/carry_install.sh): unpacks
# the Spack install to the absolute path it was built at, then runs, logging into $OUT (or
# ./out): pk-info; the recipe's stand-alone tests (`spack test run portablekernels`, with the
# carried Spack; where that cannot start, its exact equivalent, the same commands and checks,
# says so); and pk-bench --space all --size small, whose records come back as one tarball.
#   bash run-on-gpu.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here/out}
mkdir -p "$out"
work=$(cat "$here/root.txt")
status=0
log() { echo "$*" | tee -a "$out/summary.log"; }
tar -xzf "$here/pk-spack.tar.gz" -C / || { log "could not unpack pk-spack.tar.gz into /"; exit 1; }
prefix=$(ls -d "$work"/store/*/*/portablekernels-* | head -1)
# The install's Debian externals live in /usr on the machine it was made for; a site has its
# own. This machine lacks them: they go where the installed programs look (`spack test run`
# clears LD_LIBRARY_PATH), unless the machine has them already.
system_libs=/usr/lib/x86_64-linux-gnu
for lib in "$work"/debian-libs/*; do
  [ -e "$system_libs/$(basename "$lib")" ] || cp "$lib" "$system_libs/" || log "could not place $lib in $system_libs"
done
# An install on Debian's Open MPI (+mpi): Open MPI and PMIx load their plugins, help texts and
# orted by absolute path; they go to those paths unless the machine has its own there.
if [ -d "$work/debian-openmpi" ]; then
  while read -r path; do
    [ -e "/$path" ] && { log "kept this machine's /$path (not Debian's Open MPI 4.1.4)"; continue; }
    mkdir -p "$(dirname "/$path")" && cp -a "$work/debian-openmpi/$path" "/$path" || log "could not place /$path"
  done < <(cd "$work/debian-openmpi" && find . -mindepth 1 \( -type f -o -type l \) -path './usr/bin/*' -printf '%P\n';
           cd "$work/debian-openmpi" && find . -mindepth 2 -maxdepth 4 -type d \( -name openmpi -o -name pmix2 -o -name pmix \) -printf '%P\n')
  # Root runs the programs here; one process is a singleton (no mpirun), which needs no orted.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_ess_singleton_isolated=1
fi
ldconfig
export LD_LIBRARY_PATH=$work/debian-libs:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMP_PROC_BIND=spread OMP_PLACES=threads
log "install: $prefix"
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; nproc; } >>"$out/summary.log" 2>&1

"$prefix/bin/pk-info" >"$out/pk-info.log" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
log "pk-info: exit $rc"

if command -v python3 >/dev/null && python3 -c 'import sys; sys.exit(sys.version_info < (3, 6))'; then
  (
    export SPACK_USER_CONFIG_PATH=$work/config SPACK_USER_CACHE_PATH=$work/cache
    export SPACK_ROOT=$work/offline-spack/spack SPACK_PYTHON=$(command -v python3)
    spack=$SPACK_ROOT/bin/spack
    alias=pk-$(date +%s)  # an earlier run's suite may be there
    "$spack" -C "$work/scope" test run --alias "$alias" portablekernels
    rc=$?
    "$spack" -C "$work/scope" test results -l "$alias"
    exit $rc
  ) >"$out/spack-test.log" 2>&1 || status=1
  log "spack test run portablekernels: $(tail -3 "$out/spack-test.log" | tr '\n' ' ')"
else
  # The recipe's test_pk_info and test_pk_bench_tiny for +cuda, command for command.
  (
    echo "no python3 here: the recipe's stand-alone tests run as their exact equivalent"
    cd "$(mktemp -d)"
    "$prefix/bin/pk-info" | tee info.txt && grep -qw openmp info.txt && grep -qw cuda info.txt &&
      echo "PASSED: test_pk_info" || { echo "FAILED: test_pk_info"; exit 1; }
    "$prefix/bin/pk-bench" --space all --size tiny --out bench-results | tee bench.txt || exit 1
    for kernel in copy lbm rfilter besselk gbees cuda; do
      grep -q "$kernel" bench.txt || { echo "FAILED: test_pk_bench_tiny (no $kernel)"; exit 1; }
    done
    echo "PASSED: test_pk_bench_tiny"
  ) >"$out/spack-test.log" 2>&1 || status=1
  log "stand-alone tests (equivalent): $(grep -E 'PASSED|FAILED' "$out/spack-test.log" | tr '\n' ' ')"
fi

start=$SECONDS
(cd "$out" && "$prefix/bin/pk-bench" --space all --size small --out results) >"$out/pk-bench.log" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
log "pk-bench --space all --size small: exit $rc after $((SECONDS - start)) s"
tar -czf "$out/pk-bench-results.tar.gz" -C "$out" results && rm -rf "$out/results"
log "run-on-gpu.sh: status $status"
exit $status
