"""physvec: language-model agents reproduce physics-paper figures; deterministic verifiers decide what is trusted.

The package root holds the core every layer builds on (``taskfiles``: task, rubric, assertion, library and
reference files; ``runstore``: run directories and transcripts) and, at the top, the command line (``cli``).
The other layers install under this namespace from their own folders: ``physvec.agents`` (agents/),
``physvec.verifiers`` (verifiers/), ``physvec.knowledge_base``, ``physvec.qmp_bench``, and the template
libraries ``physvec.rubrics`` and ``physvec.assertions``.
"""

__version__ = "0.1.0"
