"""What the documentation promises: the examples of the help's Scripts page
and of the README run as shown, the --json keys are the documented ones,
the completion completes, and the files install where they belong."""
