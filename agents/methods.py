"""The names of the ways `reproduce` can run a task, kept apart so the command line's parser needs no
model client or graph library to list them."""

REACT_METHODS = ("react", "react-rag")
"""Baselines that repair from execution errors alone (react-rag adds retrieved documentation)."""
METHODS = ("physvec", *REACT_METHODS)
"""Every `reproduce --method`: physvec's verified pipeline first."""
