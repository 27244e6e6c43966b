#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# sim/need-trace.sh DIR FILE...: exits 1 naming the first FILE missing from DIR, the trace folder
# (SIM_TRACE), and where the whole trace comes from. Used by sim/full.sh and sim/extender.sh.
set -u
dir=$1; shift
for f in "$@"; do
    [ -f "$dir/$f" ] && continue
    cat >&2 <<MSG
gpupack-sim: $dir/$f is missing.
The repository carries only openb_node_list_gpu_node.csv and openb_pod_list_default.csv
(data/alibaba-gpu-v2023/); the other files of the Alibaba GPU trace v2023 are in
https://github.com/alibaba/clusterdata, folder cluster-trace-gpu-v2023/csv/. Fetch that folder
and run again with SIM_TRACE=/path/to/cluster-trace-gpu-v2023/csv (docs/simulation.md).
MSG
    exit 1
done
