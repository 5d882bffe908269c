"""`physvec view`: a read-only local web app over run and campaign folders (see docs/viewer.md)."""
