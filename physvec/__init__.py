"""physvec: the shared core (task files, run store, command line) of the reproduction pipeline."""

__version__ = "0.1.0"
