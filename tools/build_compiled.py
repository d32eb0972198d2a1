"""`make compiled`: compile the engine modules in engines.native.COMPILED with mypyc (it ships with the
mypy pinned in pyproject.toml), in place: each module's extension goes beside its .py, the shared part
of the build in engines_native__mypyc.*.so at the top of the tree, C sources and objects under build/
(all git-ignored). Then engines/native-build.json records the digests of engines/'s sources, so a
later edit turns the build stale and the engines fall back to the .py files (engines/native.py).

    python tools/build_compiled.py             # build; fails if it cannot
    python tools/build_compiled.py --optional  # build if a C compiler and mypyc are here, else say so
    python tools/build_compiled.py --clean     # remove the build: the engines run the .py files
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["GE_PURE_PYTHON"] = "1"  # importing engines.native must not load the build being replaced

from engines import native  # noqa: E402

GROUP = "engines_native"  # the name of the shared library of the build


def artefacts() -> list[Path]:
    """Every extension module under engines/ (also of a module no longer compiled), the shared library
    and the build record."""
    return (sorted(ROOT.glob("engines/*.so")) + sorted(ROOT.glob("engines/*/*.so"))
            + sorted(ROOT.glob(f"{GROUP}__mypyc*.so")) + [native.BUILD_FILE])


def clean() -> None:
    for path in artefacts():
        path.unlink(missing_ok=True)


def missing_tool() -> str | None:
    """Why a build cannot run here, or None."""
    compiler = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed (pip install -e '.[test]' brings the pinned mypy)"
    return None


def build() -> float:
    """Compiles COMPILED as one group (calls between its modules stay native); returns seconds."""
    from mypyc.build import mypycify
    from setuptools import setup

    t0 = time.perf_counter()
    sources = native.source_digests()  # before: an edit during the build leaves it stale
    paths = [name.replace(".", "/") + ".py" for name in native.COMPILED]
    os.chdir(ROOT)
    extensions = mypycify(["--no-warn-unused-configs", *paths], opt_level="3", group_name=GROUP)
    setup(name="engines_native", ext_modules=extensions, script_args=["build_ext", "--inplace", "-q"])
    seconds = time.perf_counter() - t0
    import mypy.version

    native.BUILD_FILE.write_text(json.dumps({
        "mypy": mypy.version.__version__, "python": sys.version.split()[0], "build_s": round(seconds, 1),
        "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "modules": list(native.COMPILED),
        "sources": sources}, indent=1) + "\n")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--optional", action="store_true", help="without a compiler or mypyc, run pure Python")
    parser.add_argument("--clean", action="store_true", help="remove the build")
    args = parser.parse_args()
    clean()
    if args.clean:
        print("engines: compiled build removed; they run as pure Python")
        return 0
    why = missing_tool()
    if why:
        print(f"engines: not compiled, {why}; they run as pure Python", file=sys.stderr)
        return 0 if args.optional else 1
    try:
        seconds = build()
    except (Exception, SystemExit) as e:  # setuptools reports a failed compile as SystemExit
        clean()
        print(f"engines: mypyc build failed ({e}); they run as pure Python", file=sys.stderr)
        return 0 if args.optional else 1
    print(f"engines: {len(native.COMPILED)} modules compiled with mypyc in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
