# Sourced by perf/peers/<peer>/build.sh: where a peer's source comes from, a scratch copy of it
# with the patch applied, and the build record (build-info.json) beside the binaries.
#
# A peer's source is, in this order: the directory named by the peer's variable
# (PK_PEER_<NAME>_SRC: a git clone or a tree exported by perf/peers/export_sources.sh), else
# build/peers/src/<peer> (where export_sources.sh puts it), else a clone of the public
# repository at the pinned commit (needs the internet). The source itself is never changed:
# the build works on a copy under build/peers/<peer>/.
set -euo pipefail
peers_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
peers_build=${PK_PEERS_BUILD:-$peers_root/build/peers}
peers_jobs=${PK_PEERS_JOBS:-$(nproc)}

peer_say() { echo "peers: $*" >&2; }
peer_die() { echo "peers: error: $*" >&2; exit 1; }

# peer_source NAME OWNER/REPO COMMIT VARIABLE: sets peer_src and peer_commit.
peer_source() {
  local name=$1 repo=$2 pin=$3 var=$4
  peer_src=${!var:-}
  if [ -z "$peer_src" ] && [ -d "$peers_build/src/$name" ]; then peer_src=$peers_build/src/$name; fi
  if [ -z "$peer_src" ]; then
    peer_src=$peers_build/src/$name
    peer_say "$name: cloning https://github.com/$repo at $pin (set $var to use a local copy)"
    command -v git >/dev/null || peer_die "no git to clone $repo; set $var to a copy of it"
    rm -rf "$peer_src.tmp"
    git clone -q "https://github.com/$repo" "$peer_src.tmp" || peer_die "cloning $repo failed; set $var"
    git -C "$peer_src.tmp" -c advice.detachedHead=false checkout -q "$pin" || peer_die "$repo has no commit $pin"
    mv "$peer_src.tmp" "$peer_src"
  fi
  [ -d "$peer_src" ] || peer_die "$var=$peer_src is not a directory"
  peer_src=$(cd "$peer_src" && pwd)
  if [ -e "$peer_src/.git" ]; then
    peer_commit=$(git -C "$peer_src" rev-parse HEAD)
  elif [ -f "$peer_src/.pk-peer-commit" ]; then
    peer_commit=$(cat "$peer_src/.pk-peer-commit")
  else
    peer_commit=unknown
  fi
  [ "$peer_commit" = "$pin" ] || peer_say "warning: $name source is at $peer_commit, the pinned commit is $pin"
  peer_repo=https://github.com/$repo
  peer_pin=$pin
}

# peer_work NAME TAG: a fresh copy of peer_src in $peers_build/NAME/TAG (sets peer_dir).
peer_work() {
  peer_dir=$peers_build/$1/$2
  rm -rf "$peer_dir" && mkdir -p "$peer_dir"
  (cd "$peer_src" && tar cf - --exclude=.git --exclude=skybox .) | (cd "$peer_dir" && tar xf -)
}

# peer_patch FILE: applies a patch (a diff against the peer) to peer_dir.
peer_patch() {
  patch -s -p1 -d "$peer_dir" <"$1" || peer_die "$1 does not apply to $peer_src"
}

# peer_info NAME KEY=VALUE...: writes $peers_build/NAME/build-info.json (strings only; binaries
# relative to $peers_build, so that a build folder can move). With PK_PEER_INFO_MERGE=1 the
# keys of an earlier record that are not set again are kept (BabelStream's models, built apart).
peer_info() {
  local name=$1
  shift
  mkdir -p "$peers_build/$name"
  PK_PEER_INFO_MERGE=${PK_PEER_INFO_MERGE:-0} python3 - "$peers_build/$name/build-info.json" "peer=$name" "repo=$peer_repo" "commit=$peer_commit" \
    "pinned_commit=$peer_pin" "source=$peer_src" "host=$(uname -n)" "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$@" <<'PY'
import json, os, sys
info = {}
if os.environ["PK_PEER_INFO_MERGE"] == "1" and os.path.exists(sys.argv[1]):
    info = json.load(open(sys.argv[1]))
info.update(dict(a.split("=", 1) for a in sys.argv[2:]))
json.dump(info, open(sys.argv[1], "w"), indent=2, sort_keys=True)
PY
  peer_say "$name: built; $peers_build/$name/build-info.json"
}
