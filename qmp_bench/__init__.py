"""QMP-Bench: benchmark tasks from quantum many-body papers, their independent references, the campaign
harness, baselines, metrics and the fault-injection benchmark."""
