"""The phact domain checker (not built yet; verifiers/domain.py reports it not_implemented)."""
