#!/bin/bash
# Reproduces every number in burst.md: the PowerTCP burst experiment of inet-tub/ns3-datacenter
# (simulator/ns-3.39/examples/PowerTCP, commit 6ddb4a4) in that simulator and in ns3-fabric.
#
#   REF=PATH/TO/ns3-datacenter OUT=/some/scratch/dir results/twins/ns3-datacenter/run-burst.sh
#
# run from the ns3-fabric source tree (fabric-run in build/). The reference must be built first:
#   cd $REF/simulator/ns-3.39
#   ./ns3 configure --build-profile=optimized --enable-examples \
#       --enable-modules="applications;point-to-point;internet;traffic-control"
#   ./ns3 build powertcp-evaluation-burst
set -e
REF=${REF:?set REF to the ns3-datacenter checkout}
OUT=${OUT:?set OUT to a scratch directory}
NS3=$REF/simulator/ns-3.39
BIN=$NS3/build/examples/PowerTCP/ns3.39-powertcp-evaluation-burst-optimized
FAB=$(pwd)

# 1. The reference, exactly as script-burst.sh runs it after "./script-burst.sh yes no" (README):
#    --windowCheck=1 for every algorithm; results-burst.sh's grep of ToR 0 Port 16. Each run gets its
#    own working directory whose examples/ points to the checkout's, so config-burst.txt's relative
#    paths (examples/PowerTCP/topology-256.txt, mix/fct.txt) resolve as they do from $NS3, and the
#    runs do not overwrite each other's mix/fct.txt.
algNames=(dcqcn powerInt hpcc powerDelay timely dctcp)
CCMODE=(1 3 3 3 7 8)
mkdir -p $OUT/ref/dump_burst $OUT/ref/results_burst
for i in 0 1 2 3 4 5; do
  name=${algNames[$i]}; wien=false; delay=false
  [[ $name == powerInt || $name == powerDelay ]] && wien=true
  [[ $name == powerDelay ]] && delay=true
  d=$OUT/ref/run-$name; mkdir -p $d/mix; ln -sfn $NS3/examples $d/examples
  (cd $d && /usr/bin/time -v -o $OUT/ref/time-$name.txt $BIN \
      --conf=$NS3/examples/PowerTCP/config-burst.txt --algorithm=${CCMODE[$i]} \
      --wien=$wien --delayWien=$delay --windowCheck=1 > $OUT/ref/dump_burst/evaluation-$name.out 2>&1)
  grep 'ToR 0 Port 16' $OUT/ref/dump_burst/evaluation-$name.out > $OUT/ref/results_burst/result-$name.burst
done

# 2. ns3-fabric on the same inputs (examples/powertcp-burst.yaml), and DCQCN / TIMELY once more with a
#    fixed 90 500 B window (the nearest to the reference's HAS_WIN window for rate-based algorithms).
mkdir -p $OUT/fabric
for cc in dcqcn hpcc timely dctcp powertcp theta-powertcp; do
  /usr/bin/time -v -o $OUT/fabric/time-$cc.txt build/fabric-run examples/powertcp-burst.yaml \
      --set cc=$cc --out $OUT/fabric/$cc --quiet
done
for cc in dcqcn timely; do
  /usr/bin/time -v -o $OUT/fabric/time-$cc-win.txt build/fabric-run examples/powertcp-burst.yaml \
      --set cc=$cc --set roce.recovery=sr --set roce.window=90500B --out $OUT/fabric/$cc-win --quiet
done

# 3. The tables' numbers (printed, and burst-numbers.json) and burst-queue.png; PYTHON: a Python with matplotlib.
${PYTHON:-python3} $FAB/results/twins/ns3-datacenter/burst_compare.py $OUT/ref $OUT/fabric $OUT

# 4. Probes quoted in burst.md (reference side): DCTCP with ECN off, and with Kmin/Kmax of 1/2 KB.
CFG=$NS3/examples/PowerTCP/config-burst.txt
d=$OUT/ref/probe; mkdir -p $d/mix; ln -sfn $NS3/examples $d/examples
sed 's/^ENABLE_QCN 1/ENABLE_QCN 0/' $CFG > $d/config-noecn.txt
sed -e 's/^KMAX_MAP .*/KMAX_MAP 3 25000000000 2 50000000000 2 100000000000 2/' \
    -e 's/^KMIN_MAP .*/KMIN_MAP 3 25000000000 1 50000000000 1 100000000000 1/' $CFG > $d/config-lowk.txt
for c in noecn lowk; do
  (cd $d && $BIN --conf=$d/config-$c.txt --algorithm=8 --wien=false --delayWien=false --windowCheck=1 \
     | grep 'ToR 0 Port 16' | awk '{if ($10 > m) m = $10} END {print "reference dctcp '$c' peak", m}')
done
# (ns3-fabric side)
build/fabric-run examples/powertcp-burst.yaml --set cc=dctcp --set switch.ecn.enabled=false \
    --set stop_time=151ms --out $OUT/fabric/dctcp-noecn --quiet
awk -F, '$2=="sw256" && $3==16 {if ($5 > m) m = $5} END {print "ns3-fabric dctcp noecn peak", m}' \
    $OUT/fabric/dctcp-noecn/queues.csv
