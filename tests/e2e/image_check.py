#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks the Dockerfile's runtime stage against the binaries it ships (no container engine runs
here, so the image itself cannot be built): every shared library that `ldd` lists for the binaries
belongs to a Debian package that the runtime stage installs, directly or as an apt dependency, or
that its debian:*-slim base already holds (priority required). Also: the binaries the manifests
run are copied to the paths they use, the user is the non-root uid the manifests expect, and the
preStop command exists in the image. Prints PASS/FAIL lines.
Usage: image_check.py ROOT BIN"""
import glob, os, re, subprocess, sys

ROOT, BIN = sys.argv[1], sys.argv[2]
fails = 0

def result(name, problems):
    global fails
    if problems:
        fails += 1
        print(f"FAIL image.{name}: {'; '.join(problems)}")
    else:
        print(f"PASS image.{name}")

def stages(text):
    """[(base image, [instruction lines])] with continuation lines joined."""
    joined = re.sub(r"\\\n\s*", " ", text)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.upper().startswith("FROM "):
            out.append((line.split()[1], []))
        elif out:
            out[-1][1].append(line)
    return out

def apt_packages(instrs):
    pkgs = []
    for ins in instrs:
        for m in re.finditer(r"apt-get install ([^&;|]*)", ins):
            pkgs += [w for w in m.group(1).split() if not w.startswith("-")]
    return pkgs

def dpkg(fmt, pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f", fmt, pkg], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None

def closure(pkgs):
    """The packages apt installs for pkgs: Depends and Pre-Depends, recursively (first
    alternative that is installed here), read from this machine's dpkg database."""
    seen, todo = set(), list(pkgs)
    while todo:
        p = todo.pop().split(":")[0]
        if p in seen:
            continue
        seen.add(p)
        deps = dpkg("${Pre-Depends}, ${Depends}", p) or ""
        for alt in deps.split(","):
            for choice in alt.split("|"):
                name = choice.strip().split(" ")[0].split(":")[0]
                if name and dpkg("${Status}", name) and "installed" in dpkg("${Status}", name):
                    todo.append(name)
                    break
    return seen

def required_packages():
    r = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Priority} ${Essential}\n"],
                       capture_output=True, text=True)
    return {l.split()[0] for l in r.stdout.splitlines()
            if len(l.split()) >= 2 and (l.split()[1] == "required" or l.endswith(" yes"))}

SANITIZER = re.compile(r"^lib(asan|ubsan|tsan|lsan)\.so")

def ldd_paths(path):
    """{soname: resolved path} that ldd lists for a binary or a library."""
    out = subprocess.run(["ldd", path], capture_output=True, text=True, check=True).stdout
    return dict(re.findall(r"^\s*(\S+) => (/\S+)", out, re.M))

def linked_libraries(binary):
    """The libraries the binary loads, leaving out sanitizer runtimes and what only they pull in
    (`make asan` runs this same check on instrumented binaries; the image ships plain ones)."""
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]",
                        subprocess.run(["readelf", "-d", binary], capture_output=True, text=True,
                                       check=True).stdout)
    paths = ldd_paths(binary)
    libs = set()
    for soname in needed:
        if SANITIZER.match(soname) or soname not in paths:
            continue
        libs.add(paths[soname])
        libs.update(ldd_paths(paths[soname]).values())
    return libs

def linked_packages(binaries):
    """{package: [library, ...]} for every library the binaries load."""
    owners = {}
    for b in binaries:
        for lib in linked_libraries(b):
            r = None
            for cand in (lib, os.path.realpath(lib), "/usr" + lib if lib.startswith("/lib") else lib):
                r = subprocess.run(["dpkg", "-S", cand], capture_output=True, text=True)
                if r.returncode == 0:
                    break
            pkg = r.stdout.split(":")[0].strip() if r and r.returncode == 0 else f"(no package owns {lib})"
            owners.setdefault(pkg, []).append(os.path.basename(lib))
    return owners

def missing_libraries(runtime_pkgs, owners, base):
    have = closure(runtime_pkgs) | base
    return [f"{pkg} ({', '.join(sorted(set(libs)))})" for pkg, libs in sorted(owners.items()) if pkg not in have]

text = open(os.path.join(ROOT, "Dockerfile")).read()
st = stages(text)
runtime_base, runtime = st[-1]
pkgs = apt_packages(runtime)
binaries = [os.path.join(BIN, n) for n in ("gpupack-webhook", "gpupack-extender", "gpupack-certs", "gpupack-advisor")]
owners = linked_packages(binaries)
base = required_packages()

result("dockerfile-multi-stage", [] if len(st) >= 2 and runtime_base.startswith("debian:") and
       runtime_base.endswith("-slim") and st[0][0].startswith("debian:") else [f"stages {[s[0] for s in st]}"])
result("runtime-installs-every-linked-library", missing_libraries(pkgs, owners, base))
# The check is real: without one of the listed packages it reports that package's libraries.
probe = [p for p in pkgs if p != "libyaml-0-2"]
result("runtime-check-catches-a-missing-package",
       [] if any(m.startswith("libyaml-0-2") for m in missing_libraries(probe, owners, base))
       else ["dropping libyaml-0-2 went unnoticed"])
result("runtime-has-no-build-packages",
       [p for p in pkgs if p.endswith("-dev") or p in ("build-essential", "gcc", "make", "pkg-config")])

copies = " ".join(i for i in runtime if i.upper().startswith("COPY"))
problems = []
for f in glob.glob(os.path.join(ROOT, "manifests/**/*.yaml"), recursive=True):
    for cmd in re.findall(r'command: \["(/usr/local/bin/[^"]+)"', open(f).read()):
        name = os.path.basename(cmd)
        if f"/src/bin/{name}" not in copies or "/usr/local/bin/" not in copies:
            problems.append(f"{os.path.relpath(f, ROOT)} runs {cmd}, which the image does not hold")
result("image-holds-what-the-manifests-run", problems)

user = [i.split()[1] for i in runtime if i.upper().startswith("USER ")]
uids = set(re.findall(r"runAsUser: (\d+)", open(os.path.join(ROOT, "manifests/base/webhook.yaml")).read()))
result("image-runs-as-the-manifests-non-root-user",
       [] if user and user[-1].split(":")[0] != "0" and {user[-1].split(":")[0]} == uids
       else [f"USER {user} vs runAsUser {uids}"])
# /bin/sleep (the webhook's preStop) comes from coreutils, an Essential package of every Debian base.
result("image-has-the-prestop-command",
       [] if "coreutils" in base and dpkg("${Essential}", "coreutils") == "yes" else ["coreutils is not essential?"])
sys.exit(1 if fails else 0)
