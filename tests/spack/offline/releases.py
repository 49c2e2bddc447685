# The recipe's releases as Spack reads them, one line each:
#   VERSION COMMIT SHA256 URL SHA256-OF-_releases
# (tests/spack/spec_with_offline_spack.sh rebuilds each archive from its commit).
#   spack -C SCOPE python releases.py
import spack.repo
from spack.version import Version

cls = spack.repo.PATH.get_pkg_class("portablekernels")
for v, (commit, sha) in cls._releases.items():
    info = cls.versions[Version(v)]
    print(v, commit, info["sha256"], info["url"], sha)
