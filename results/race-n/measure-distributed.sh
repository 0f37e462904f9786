#!/bin/bash
# One process against two (jax.distributed on 127.0.0.1, CPU, gloo) for a race at a table: wall s,
# user s, sys s, max RSS KB of each process (/usr/bin/time), its JSON line (process 0), the load
# average before and after. Usage: measure-distributed.sh [rules options], e.g. --players 4 --goal 1000
PY=${PY:-.venv/bin/python}
export JAX_PLATFORMS=cpu
OUT=${OUT:-/tmp/race-n-distributed}
mkdir -p "$OUT"
port() { $PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
run() {  # run PROCESSES [options]
  local n=$1; shift
  local p; p=$(port)
  echo "## $n process(es): $PY -m jaxsolve.games.race_table_distributed $* --coordinator 127.0.0.1:$p --processes $n --process-id I"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  for ((i = 0; i < n; i++)); do
    /usr/bin/time -f "%e %U %S %M" -o "$OUT/time-$n-$i.txt" $PY -m jaxsolve.games.race_table_distributed "$@" \
      --coordinator "127.0.0.1:$p" --processes "$n" --process-id "$i" > "$OUT/out-$n-$i.txt" 2> "$OUT/err-$n-$i.txt" &
  done
  wait
  for ((i = 0; i < n; i++)); do echo "process $i: wall user sys maxrss_kb: $(cat "$OUT/time-$n-$i.txt")"; done
  cat "$OUT/out-$n-0.txt"
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
}
run 1 "$@"
run 2 "$@"
