"""The chromadb store of numerical-library documentation, its ingestion, and the retrieve tool."""
