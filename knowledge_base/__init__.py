"""The chromadb store of numerical-library documentation and the retrieve tool (not built yet)."""
