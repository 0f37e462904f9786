#!/bin/bash
# A race at a table solved by two processes on this machine's two cores (jax.distributed on
# 127.0.0.1, CPU, gloo), each pinned to its own core with XLA's CPU thread pool off (one process
# computes on one core; its pool's second thread only spins): wall s, user s, sys s and peak
# RSS KB of each process (/usr/bin/time), the JSON line of process 0, the load before and
# after. Usage: measure-table-run.sh OUT_DIR [rules options], e.g. OUT_DIR --goal 10000
PY=${PY:-.venv/bin/python}
export JAX_PLATFORMS=cpu
export XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
OUT=$1; shift
mkdir -p "$OUT"
p=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "## 2 processes: $PY -m jaxsolve.games.race_table_distributed $* --coordinator 127.0.0.1:$p --processes 2 --process-id I"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 0 1; do
  taskset -c "$i" /usr/bin/time -f "%e %U %S %M" -o "$OUT/time-$i.txt" $PY -m jaxsolve.games.race_table_distributed "$@" \
    --coordinator "127.0.0.1:$p" --processes 2 --process-id "$i" > "$OUT/out-$i.txt" 2> "$OUT/err-$i.txt" &
done
wait
for i in 0 1; do echo "process $i: wall user sys maxrss_kb: $(cat "$OUT/time-$i.txt")"; done
cat "$OUT/out-0.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
