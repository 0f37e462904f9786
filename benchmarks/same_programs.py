"""Whether this tree and an earlier commit run the same XLA programs for one benchmark case.

Each tree solves the case once in a fresh process with XLA's dump of every module it compiles
(``--xla_dump_to``, the optimized HLO as text); the modules are compared with their source
metadata (file names, line numbers, Python function names) and module names left out. Equal
optimized programs run the same machine code, so their speed can only differ by the machine's
noise: this settles "within 5 %" where timing two trees side by side cannot resolve it.

    python benchmarks/same_programs.py 79d894a --case "target yahtzee 8-open float32"
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from compare_commit import TIMER  # noqa: E402

META = re.compile(r",?\s*metadata=\{[^{}]*\}")
NAME = re.compile(r"^HloModule [^ ,]+", re.M)
SOURCE = re.compile(r"^(FileNames|FunctionNames|FileLocations|StackFrames)\n(?:.+\n)*", re.M)


def canonical(text: str) -> str:
    """An optimized HLO module without its source metadata, its tables of source files and
    Python frames, and its module name."""
    return SOURCE.sub("", NAME.sub("HloModule m", META.sub("", text)))


def programs(tree: Path, case: str, dump: Path) -> dict[str, int]:
    """Digest -> count of the optimized modules ``tree`` compiles for ``case``."""
    env = dict(os.environ, PYTHONPATH=str(tree), XLA_FLAGS=f"--xla_dump_to={dump} --xla_dump_hlo_as_text --xla_dump_hlo_pass_re=^$")
    subprocess.run([sys.executable, "-c", TIMER, "0", case], cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    out: dict[str, int] = {}
    for f in sorted(dump.glob("*after_optimizations.txt")):
        d = hashlib.sha256(canonical(f.read_text()).encode()).hexdigest()[:16]
        out[d] = out.get(d, 0) + 1
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ref", help="the earlier commit")
    ap.add_argument("--case", action="append", required=True, help="a case name of compare_commit.py (repeatable)")
    ap.add_argument("--keep", type=Path, default=None, help="keep the dumps in this folder")
    ap.add_argument("--out", type=Path, default=None, help="write the verdicts as a Markdown table here")
    args = ap.parse_args()
    rows, same_all = [], True
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = args.keep or Path(tmp_dir)
        old = Path(tmp_dir) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", str(old), args.ref], cwd=ROOT, check=True, capture_output=True)
        try:
            for i, case in enumerate(args.case):
                new_p = programs(ROOT, case, tmp / f"dump-new-{i}")
                old_p = programs(old, case, tmp / f"dump-old-{i}")
                same = new_p == old_p
                same_all &= same
                differ = sum(abs(new_p.get(d, 0) - old_p.get(d, 0)) for d in set(new_p) | set(old_p))
                verdict = "the same optimized HLO, module for module" if same else f"{differ} modules differ"
                print(f"{case}: this tree compiles {sum(new_p.values())} programs, {args.ref} {sum(old_p.values())}; {verdict}", flush=True)
                rows.append(f"| {case} | {sum(new_p.values())} | {sum(old_p.values())} | {verdict} |")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=False, capture_output=True)
    if args.out:
        head = [f"| case | programs, this tree | programs, {args.ref} | compared |", "| --- | --- | --- | --- |"]
        args.out.write_text("\n".join(head + rows) + "\n")
    return 0 if same_all else 1


if __name__ == "__main__":
    sys.exit(main())
