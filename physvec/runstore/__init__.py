"""Run directories: the task as run, the append-only transcript, scripts, certificates, report."""
