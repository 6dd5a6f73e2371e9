#!/bin/bash
# ns3-fabric on the same incast, from the repository root: ./results/twins/ns3-datacenter/hpcc-incast-16/run-fabric.sh [OUT]
#   demo:  examples/incast.yaml with cc=hpcc as it is (24 B preamble + gap, 1 MiB buffer, PFC xoff 48 KiB)
#   twin:  the reference's wire and buffer: no preamble or gap (4198 B frames), 32 MiB, PFC off
set -e
OUT=${1:-build/hpcc-incast-16}
FR=${FABRIC_RUN:-build/fabric-run}
S=results/twins/ns3-datacenter/hpcc-incast-16/summarise.py
TWIN="--set link.wire_overhead=0B --set switch.buffer=32MiB --set switch.pfc.enabled=false"
N2="--set workload.senders=2 --set workload.bytes_per_sender=32MiB"
run() { # name frame T_us args...
  local name=$1 frame=$2 t=$3; shift 3
  $FR examples/incast.yaml --set cc=hpcc "$@" --out $OUT/$name --quiet
  python3 $S fabric $OUT/$name $frame $t
}
run demo-16        4222 0.762 --set hpcc.base_rtt=762ns
run demo-16-10us   4222 10                                   # the default T = 10 us
run demo-16-mi5    4222 0.762 --set hpcc.base_rtt=762ns --set hpcc.max_stage=5
run demo-2         4222 0.762 --set hpcc.base_rtt=762ns $N2
run demo-2-mi5     4222 0.762 --set hpcc.base_rtt=762ns --set hpcc.max_stage=5 $N2
run twin-16        4198 0.762 --set hpcc.base_rtt=762ns $TWIN
run twin-16-10us   4198 10    $TWIN
run twin-16-mi5    4198 0.762 --set hpcc.base_rtt=762ns --set hpcc.max_stage=5 $TWIN
run twin-2         4198 0.762 --set hpcc.base_rtt=762ns $TWIN $N2
run twin-2-mi5     4198 0.762 --set hpcc.base_rtt=762ns --set hpcc.max_stage=5 $TWIN $N2
for s in $(seq 1 10); do   # starts spread by up to 100 ns, as make-jitter.py does for the reference
  run demo-16-j$s 4222 0.762 --set hpcc.base_rtt=762ns --set workload.start_jitter=100ns --seed $s
  run twin-16-j$s 4198 0.762 --set hpcc.base_rtt=762ns --set workload.start_jitter=100ns --seed $s $TWIN
done
