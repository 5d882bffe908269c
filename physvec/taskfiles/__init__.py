"""The three kinds of input file a user writes: task, rubric and assertion files."""
