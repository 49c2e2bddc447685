# Sourced before FluidX3D runs: an OpenCL ICD loader and the NVIDIA ICD, without touching the
# system. A machine with a loader (libOpenCL.so.1 known to ldconfig) uses it; otherwise
# Debian's ocl-icd-libopencl1 .deb in build/peers/debs (perf/peers/prepare.sh downloads it)
# is unpacked into build/peers/opencl and put on LD_LIBRARY_PATH. If the system's
# /etc/OpenCL/vendors names no NVIDIA library but the driver has one (libnvidia-opencl.so.1),
# OCL_ICD_VENDORS points at a folder whose nvidia.icd names it (the H200 machine's vendors
# folder holds only pocl.icd). PK_PEERS_OPENCL_VENDORS overrides the choice of folder, e.g.
# to try an OpenCL CPU runtime.
pk_ocl_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pk_ocl_dir=${PK_PEERS_BUILD:-$pk_ocl_root/build/peers}/opencl
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so\.1 '; then
  pk_ocl_deb=$(ls "${PK_PEERS_BUILD:-$pk_ocl_root/build/peers}"/debs/ocl-icd-libopencl1_*.deb 2>/dev/null | head -1)
  if [ -n "$pk_ocl_deb" ] && [ ! -e "$pk_ocl_dir/root/usr/lib/x86_64-linux-gnu/libOpenCL.so.1" ]; then
    mkdir -p "$pk_ocl_dir/root"
    if command -v dpkg >/dev/null; then
      dpkg -x "$pk_ocl_deb" "$pk_ocl_dir/root"
    else  # a .deb is an ar archive holding data.tar.*
      python3 - "$pk_ocl_deb" "$pk_ocl_dir/root" <<'PY'
import io, sys, tarfile
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"!<arch>\n"
i = 8
while i < len(data):
    name, size = data[i:i + 16].decode().strip().rstrip("/"), int(data[i + 48:i + 58])
    body = data[i + 60:i + 60 + size]
    if name.startswith("data.tar"):
        tarfile.open(fileobj=io.BytesIO(body)).extractall(sys.argv[2])
    i += 60 + size + (size % 2)
PY
    fi
  fi
  if [ -e "$pk_ocl_dir/root/usr/lib/x86_64-linux-gnu/libOpenCL.so.1" ]; then
    export LD_LIBRARY_PATH=$pk_ocl_dir/root/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
  else
    echo "peers: warning: no OpenCL ICD loader (libOpenCL.so.1) on this machine nor in build/peers/debs" >&2
  fi
fi
if [ -n "${PK_PEERS_OPENCL_VENDORS:-}" ]; then
  export OCL_ICD_VENDORS=$PK_PEERS_OPENCL_VENDORS
elif ! grep -qs nvidia /etc/OpenCL/vendors/*.icd; then
  pk_ocl_nv=$(/sbin/ldconfig -p 2>/dev/null | awk '$1 == "libnvidia-opencl.so.1" {print $NF; exit}')
  for c in /usr/lib/libnvidia-opencl.so.1 /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib64/libnvidia-opencl.so.1; do
    [ -n "$pk_ocl_nv" ] || { [ -e "$c" ] && pk_ocl_nv=$c; }
  done
  if [ -n "$pk_ocl_nv" ]; then
    mkdir -p "$pk_ocl_dir/vendors"
    echo "$pk_ocl_nv" >"$pk_ocl_dir/vendors/nvidia.icd"
    export OCL_ICD_VENDORS=$pk_ocl_dir/vendors
  fi
fi
# An OpenCL CPU runtime for FluidX3D on the CPU (run.py's fluidx3d-cpu): a vendors folder with
# the system's ICDs other than NVIDIA's (e.g. PoCL's pocl.icd), or PK_PEERS_OPENCL_CPU_VENDORS.
if [ -z "${PK_PEERS_OPENCL_CPU_VENDORS:-}" ]; then
  for icd in /etc/OpenCL/vendors/*.icd; do
    [ -f "$icd" ] && ! grep -qi nvidia "$icd" || continue
    mkdir -p "$pk_ocl_dir/cpu-vendors" && cp "$icd" "$pk_ocl_dir/cpu-vendors/"
    export PK_PEERS_OPENCL_CPU_VENDORS=$pk_ocl_dir/cpu-vendors
  done
fi
echo "peers: OpenCL: loader $( (/sbin/ldconfig -p 2>/dev/null | grep -q 'libOpenCL\.so\.1 ' && echo system) || echo "$pk_ocl_dir/root"), vendors ${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}, CPU vendors ${PK_PEERS_OPENCL_CPU_VENDORS:-none}" >&2
