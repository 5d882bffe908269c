"""The assertion library: parameterised assertion templates (limits, symmetries, conservation laws,
variational bounds, sum rules), as JSON files a task instantiates with its own parameters.

Tasks name them; code resolves them at load time (``physvec.taskfiles.library``).  Add files here.
"""
