#!/bin/bash
# 7 runs each of a second advise (the table cached) in a new process: wall s, user s, sys s, max RSS KB
# (/usr/bin/time), then how often the run said 'using the cached table' and 'solving'; whether JAX was imported
export JAXSOLVE_CACHE=${JAXSOLVE_CACHE:-/tmp/rn-cache}  # a cache folder that holds both tables (one advise of each before)
PY=${PY:-.venv/bin/python}
run() {
  echo "## $*"
  echo "load before: $(cut -d' ' -f1 /proc/loadavg)"
  for i in 1 2 3 4 5 6 7; do
    /usr/bin/time -f "%e %U %S %M" -o /tmp/t.txt $PY -m jaxsolve "$@" > /tmp/out.txt 2> /tmp/err.txt
    echo "$(cat /tmp/t.txt) $(grep -c 'using the cached table' /tmp/err.txt) $(grep -c solving /tmp/err.txt)"
  done
  echo "load after: $(cut -d' ' -f1 /proc/loadavg)"
  $PY -X importtime -m jaxsolve "$@" 2>&1 >/dev/null | grep -cE "\| +jax$" | sed 's/^/jax imported (importtime lines): /'
}
run advise pig-table --scores 34,57,64 --turn 12
run advise zehntausend-table --scores 450,1200,800 --turn 300 --dice-left 3
