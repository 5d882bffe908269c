"""Where a campaign's trials run (locally or on a Dask cluster), and the client-side loop that records them."""
