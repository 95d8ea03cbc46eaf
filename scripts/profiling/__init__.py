"""scripts/profile, in parts: the text's predictions next to Nsight Compute's counters.

One concept per module:
  errors       what can go wrong, and the exit status each gives
  processes    running a program with a time limit
  formatting   numbers as cells, and tables for the terminal (100 columns) and for Markdown
  programs     the stage programs of a build, and the arguments each is profiled with
  records      a program's run record (--analysis --json): its tables
  predictions  a stage's predictions: the row of the record's "profile" table, and the text's analysis
  ncu          running Nsight Compute and reading its CSV
  metric_set   the curated metrics, with fall-back names
  launches     which launches of a program are its timed repetition
  comparison   the rows "quantity | predicted | measured | why" of one stage
  limiters     what limits a kernel, from a second set of counters
  recording    the files a run writes (and profile/recorded/ keeps): JSON, Markdown, and reading them back
  stages       the default command: profile stage programs
  limiter_runs --limiters: profile the kernels of the stages beyond the text
  kernel_counters  the counters that explain an exercise's kernel (grade's feedback shows the same)
  exercises    --exercise: profile an exercise's kernel through its feedback case, next to the solution's
  cli          the command line

Python 3 standard library only.
"""
