"""The compiled-bank cache on a full disk: the cache is skipped and no partial file is left behind."""
from __future__ import annotations

import subprocess
import sys

from test_faults_llm import FILL, SMALL_FS, needs_small_fs

STORE = ("import sys; from pathlib import Path; from clutrr.render.bank_cache import store; "
         "store(Path(sys.argv[1]) / 'cache' / 'bank.json', ['x' * 1000] * 200)")


@needs_small_fs
def test_a_full_disk_leaves_no_partial_cache_file(tmp_path):
    fs, out = tmp_path / "fs", tmp_path / "out"
    fs.mkdir()
    out.mkdir()
    script = (f"mount -t tmpfs -o size=4m tmpfs '{fs}' && '{sys.executable}' -c '{FILL}' '{fs}' 20000 && "
              f"'{sys.executable}' -c \"{STORE}\" '{fs}' 2> '{out}/stderr'; echo $? > '{out}/rc'; "
              f"ls -A '{fs}/cache' > '{out}/listing'")
    subprocess.run([*SMALL_FS, script], timeout=120, check=True)
    assert (out / "rc").read_text().strip() == "0", (out / "stderr").read_text()
    assert (out / "listing").read_text().split() == []  # neither the cache file nor a partial .tmp
