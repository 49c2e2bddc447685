# Writes a Spack repository (namespace `builtin`) that holds only the builtin packages in
# PortableKernels' dependency closure, copied from the running Spack's builtin repository.
# Spack indexes every package of a repository it searches (~8000 builtin packages: minutes on
# a cold cache); this one holds a few hundred. Virtuals resolve to the one provider that the
# configuration requires or prefers first. Externals are followed too: the concretizer loads
# the recipe of every package it could reach or that a recipe's conditions name.
#   spack -C SCOPE python closure_repo.py OUT_DIR ROOT_PACKAGE...
import os
import shutil
import sys

import spack.config
import spack.repo
import spack.spec

out, roots = sys.argv[1], sys.argv[2:]
builtin = spack.repo.PATH.get_repo("builtin")
packages = spack.config.get("packages")


def provider(virtual):
    """The provider that packages.yaml requires, or else the first one it prefers, or else the
    first by name of the builtin providers (a virtual that no recipe can provide is an error:
    `pbs` for openmpi's schedulers=tm)."""
    settings = packages.get(virtual, {})
    required = settings.get("require")
    if isinstance(required, str):
        return spack.spec.Spec(required).name
    preferred = packages.get("all", {}).get("providers", {}).get(virtual)
    if preferred:
        return spack.spec.Spec(preferred[0]).name
    names = sorted({s.name for s in spack.repo.PATH.providers_for(virtual)})
    return names[0] if names else None


def mentioned(obj):
    """Names of the packages in the specs that a recipe's directives hold."""
    if isinstance(obj, spack.spec.Spec):
        yield from (s.name for s in obj.traverse() if s.name)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            yield from mentioned(key)
            yield from mentioned(value)
    elif isinstance(obj, (list, tuple, set)):
        for item in obj:
            yield from mentioned(item)
    elif isinstance(getattr(obj, "spec", None), spack.spec.Spec):  # a Dependency
        yield from mentioned(obj.spec)


closure, todo = set(), list(roots)
while todo:
    name = todo.pop()
    if name in closure:
        continue
    if not spack.repo.PATH.exists(name):  # a virtual
        if provider(name):
            todo.append(provider(name))
        continue
    closure.add(name)
    cls = spack.repo.PATH.get_pkg_class(name)
    # Dependencies, and the packages that conflicts and requirements name (`^zlib`).
    for directive in ("dependencies", "conflicts", "requirements", "provided", "patches"):
        todo.extend(mentioned(getattr(cls, directive)))
    # Recipes that subclass another builtin recipe import it from spack.pkg.builtin.
    for klass in cls.__mro__:
        if klass.__module__.startswith("spack.pkg.builtin."):
            todo.append(klass.__module__.split(".")[3].replace("_", "-"))

os.makedirs(os.path.join(out, "packages"))
with open(os.path.join(out, "repo.yaml"), "w") as f:
    f.write("repo:\n  namespace: builtin\n")
for name in sorted(n for n in closure if builtin.exists(n)):
    shutil.copytree(builtin.dirname_for_package_name(name), os.path.join(out, "packages", name))
print(f"{out}: {len(os.listdir(os.path.join(out, 'packages')))} builtin packages")
