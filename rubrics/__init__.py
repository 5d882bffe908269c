"""The rubric library: reusable rubric sections and templates per method family, as JSON files.

Tasks name them; code resolves them at load time (``physvec.taskfiles.library``).  Add files here.
"""
