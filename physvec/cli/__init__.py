"""The command line, the top layer: ``reproduce``, ``physvec``, ``qmp-bench``, ``dualitycert``, ``phact``.

Nothing below imports from here; each command imports the libraries it needs only when it runs.
"""
