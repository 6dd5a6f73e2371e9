#!/bin/bash
# Reproduces every number in README.md: the PowerTCP authors' burst and fairness experiments of
# inet-tub/ns3-datacenter (simulator/ns-3.39/examples/PowerTCP, commit 6ddb4a4) in that simulator
# and in ns3-fabric, both from that directory's own files.
#
#   REF=PATH/TO/ns3-datacenter OUT=/some/scratch/dir results/twins/ns3-datacenter/run-twins.sh
#
# run from the ns3-fabric source tree (fabric-run in build/). The reference must be built first
# (~20 minutes on 2 cores; a benchmark, not a CI test):
#   cd $REF/simulator/ns-3.39
#   ./ns3 configure --build-profile=optimized --enable-examples --disable-tests \
#       --disable-python-bindings --enable-modules="applications;point-to-point;internet;traffic-control"
#   ./ns3 build powertcp-evaluation-burst powertcp-evaluation-fairness
set -e
REF=${REF:?set REF to the ns3-datacenter checkout}
OUT=${OUT:?set OUT to a scratch directory}
NS3=$REF/simulator/ns-3.39
FAB=$(pwd)
FABRIC_RUN=$FAB/build/fabric-run
algNames=(dcqcn powerInt hpcc powerDelay timely dctcp)       # script-burst.sh, script-fairness.sh
CCMODE=(1 3 3 3 7 8)
fabricCc=(dcqcn powertcp hpcc theta-powertcp timely dctcp-rate)  # the same algorithms here

# One reference run as its scripts start it: its own working directory whose examples/ points
# into the checkout, so the config's relative paths (examples/PowerTCP/..., mix/fct.txt) resolve
# as from simulator/ns-3.39 and runs do not overwrite each other's mix/.
reference() { # experiment algorithm-index windowCheck grep-pattern
  local exp=$1 i=$2 win=$3 pattern=$4 name=${algNames[$2]} wien=false delay=false
  [[ $name == powerInt || $name == powerDelay ]] && wien=true
  [[ $name == powerDelay ]] && delay=true
  local d=$OUT/ref-$exp/run-$name
  mkdir -p $d/mix; ln -sfn $NS3/examples $d/examples
  (cd $d && /usr/bin/time -v -o $OUT/ref-$exp/time-$name.txt \
      $NS3/build/examples/PowerTCP/ns3.39-powertcp-evaluation-$exp-optimized \
      --conf=${CONFIG_FAIRNESS:-$NS3/examples/PowerTCP/config-$exp.txt} --algorithm=${CCMODE[$i]} \
      --wien=$wien --delayWien=$delay --windowCheck=$win 2>&1 | grep -E "$pattern" \
      > $OUT/ref-$exp/eval-$name.out)
}

# ns3-fabric on the same files: fabric-run --hpcc-config with the config the reference read,
# started from the same directory (docs/hpcc-config.md). The scenario's cc stands for the
# reference's --algorithm/--wien/--delayWien; windowCheck=0 is roce.rate_window=off. The other
# --set keys only choose what is traced.
fabric() { # experiment algorithm-index windowCheck trace-keys...
  local exp=$1 i=$2 win=$3; shift 3
  local cc=${fabricCc[$i]} extra=""
  [[ $win == 0 ]] && extra="--set roce.rate_window=off"
  mkdir -p $OUT/fabric-$exp
  (cd $NS3 && /usr/bin/time -v -o $OUT/fabric-$exp/time-$cc.txt $FABRIC_RUN \
      --hpcc-config examples/PowerTCP/config-$exp.txt --hpcc-simulator ns3-datacenter \
      --set cc=$cc $extra "$@" --out $OUT/fabric-$exp/$cc --quiet 2>/dev/null)
}

# 1. Burst (README's "./script-burst.sh yes no"): windowCheck=1 for every algorithm; ToR 0 port 16
#    is the bottleneck (results-burst.sh greps "ToR 0 Port 16"; here it is sw256 port 16).
mkdir -p $OUT/ref-burst/results_burst
for i in 0 1 2 3 4 5; do
  reference burst $i 1 'ToR 0 Port 16'
  cp $OUT/ref-burst/eval-${algNames[$i]}.out $OUT/ref-burst/results_burst/result-${algNames[$i]}.burst
  fabric burst $i 1 --set 'trace.queue_nodes=[sw256]' --set trace.queue_interval=1us \
      --set trace.rate_interval=10us
done
# burst_compare.py reads the reference's fct.txt from run-<alg>/mix/ and its time files.
${PYTHON:-python3} $FAB/results/twins/ns3-datacenter/burst_compare.py $OUT/ref-burst \
    $OUT/fabric-burst $OUT

# 2. Fairness (script-fairness.sh): windowCheck=0 for DCQCN and TIMELY, 1 for the others. The
#    reference program stops each flow 400 ms after its start (powertcp-evaluation-fairness.cc:147)
#    and ns3-fabric's flows run to their size, so both simulate the four phases only: to 401 ms
#    (the reference from a copy of config-fairness.txt with SIMULATOR_STOP_TIME 0.401, ns3-fabric
#    with stop_time 401ms); wall times are then for the same work.
sed 's/^SIMULATOR_STOP_TIME .*/SIMULATOR_STOP_TIME 0.401/' $NS3/examples/PowerTCP/config-fairness.txt \
    > $OUT/config-fairness-401.txt
for i in 0 1 2 3 4 5; do
  win=1; [[ ${algNames[$i]} == dcqcn || ${algNames[$i]} == timely ]] && win=0
  CONFIG_FAIRNESS=$OUT/config-fairness-401.txt reference fairness $i $win 'Src [0-3] Total'
  fabric fairness $i $win --set stop_time=401ms --set trace.rate_interval=1ms \
      --set 'trace.queue_nodes=[sw129]' --set trace.queue_interval=10us
done
${PYTHON:-python3} $FAB/results/twins/ns3-datacenter/fairness_compare.py $OUT/ref-fairness \
    $OUT/fabric-fairness $OUT
