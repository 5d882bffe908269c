"""MatPCR: physics oracles that decide, claim by claim, whether a materials claim is physically consistent."""
