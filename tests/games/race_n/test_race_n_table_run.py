"""``scripts/race_n_table_run.py``: a walk resumed from its checkpoint, named by its segments'
folders joined by ``+``, is one row whose times are each process's sums over the segments and
whose figures are the last segment's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "scripts"))

import race_n_table_run as runs  # noqa: E402


def _segment(folder: Path, times: list[str], load: str, out: dict | None, bars: str) -> Path:
    folder.mkdir()
    for i, t in enumerate(times):
        (folder / f"time-{i}.txt").write_text(t)
    (folder / "log.txt").write_text(f"## 2 processes\nload before: {load}\nload after: 1 1 1\n")
    (folder / "out-0.txt").write_text(json.dumps(out) + "\n" if out else "[Gloo] connected\n")
    (folder / "err-0.txt").write_text(bars + ("" if out else "error: a cycle too large\n"))
    return folder


def test_a_resumed_walk_sums_its_segments(tmp_path):
    first = _segment(tmp_path / "a", ["Command exited with non-zero status 1\n100.0 90.0 2.0 2097152\n", "Command exited with non-zero status 1\n100.5 91.0 1.0 1048576\n"],
                     "2.0 2.0 2.0", None, "solving x, layers: 470/598, 0:01:40 elapsed\n")
    line = {"rules": {"players": 3, "goal": 1000, "entry": 0}, "start": [0.5, 0.3, 0.2], "sha256": "0" * 64, "processes": 2, "unsettled": 3,
            "rounds": 60, "residual": 1e-14, "solve_seconds": 9.0, "compile_seconds": 1.0}
    last = _segment(tmp_path / "b", ["10.0 8.0 1.0 1048576\n", "10.0 9.0 0.5 524288\n"], "0.5 0.5 0.5", line, "")
    row = runs.row_of(Path(f"{first}+{last}"))
    assert row["start"] == [0.5, 0.3, 0.2] and row["goal"] == 1000
    assert [p["wall_seconds"] for p in row["each_process"]] == [110.0, 110.5]
    assert [p["user_seconds"] for p in row["each_process"]] == [98.0, 100.0]
    assert [p["peak_rss_mib"] for p in row["each_process"]] == [2048.0, 1024.0]
    assert row["wall_seconds"] == 110.5 and row["peak_rss_mib"] == 2048.0
    assert [s["folder"] for s in row["segments"]] == ["a", "b"]
    assert row["load_before"] == "2.0 2.0 2.0 then 0.5 0.5 0.5"
    assert "| goal 1,000 | 0.500000 / 0.300000 / 0.200000 |" in runs.table([row])
