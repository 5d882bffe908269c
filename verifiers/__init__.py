"""Everything that decides: certificates, the sandbox, and the verifiers behind one protocol."""
