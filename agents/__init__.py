"""Everything that talks to a language model: providers, roles, prompts and the pipeline graph."""
