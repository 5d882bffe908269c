"""QMP-Bench: benchmark tasks from quantum many-body papers, harness, baselines, metrics (not built yet)."""
