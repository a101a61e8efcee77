# Sourced first by tools/run, tools/test, tools/bench and tools/fuzz: they
# run here where this machine has the stack they are made for (tools/stack),
# and otherwise run again inside tools/world, saying so in one line.
if [ -z "${SR_IN_WORLD:-}" ] && ! sr_lacking=$("$(dirname "${BASH_SOURCE[0]}")/stack"); then
  echo "tools/${0##*/}: this machine lacks $sr_lacking; running inside tools/world (Debian testing)"
  exec "$(dirname "${BASH_SOURCE[0]}")/world" run "$0" "$@"
fi
