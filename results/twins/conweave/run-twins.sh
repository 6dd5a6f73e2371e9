#!/bin/bash
# Reproduces every number in README.md: ConWeave's leaf-spine experiment (conweave-project/
# conweave-ns3 run.py: leaf_spine_128_100G_OS2, DCQCN, --pfc 1 --irn 0, AliStorage2019,
# --netload 50 = 25 % host load, 2 ms of arrivals) in that simulator and in ns3-fabric, from the
# same config.txt and the same flow file (flows-L25-2ms.txt.gz beside this script).
#
#   REF=PATH/TO/conweave-ns3 OUT=/some/scratch/dir results/twins/conweave/run-twins.sh [LB ...]
#
# LB: fecmp letflow conga drill conweave (default: all five). Run from the ns3-fabric source tree
# (fabric-run in build/). The reference must be built
# first with Python 2 (~7 minutes on 2 cores; a benchmark, not a CI test):
#   cd $REF && python2 ./waf configure --build-profile=optimized \
#       --enable-modules=core,network,internet,point-to-point,applications \
#       --disable-tests --disable-examples --disable-python && python2 ./waf -j2
# run.py needs python3 with numpy (Debian python3-numpy) and `python` = Python 2 on PATH for its
# ./waf and traffic_gen.py calls: PY2BIN names that directory (pyenv's 2.7.18 by default).
set -e
REF=${REF:?set REF to the conweave-ns3 checkout}
OUT=${OUT:?set OUT to a scratch directory}
PY2BIN=${PY2BIN:-$HOME/.pyenv/versions/2.7.18/bin}
FAB=$(pwd)
FABRIC_RUN=${FABRIC_RUN:-$FAB/build/fabric-run}
HERE=$FAB/results/twins/conweave
LBS=("$@")
[[ ${#LBS[@]} -gt 0 ]] || LBS=(fecmp letflow conga drill conweave)
mkdir -p $OUT

# run.py, copied out of the checkout with two changes: Python 3.11's random.seed refuses a
# datetime (run.py:18), and run.py refuses less than 5 ms of arrivals (run.py:208) because its
# fctAnalysis.py drops a 5 ms warm-up; compare.py reads every flow instead.
sed -e 's/random.seed(datetime.now())/random.seed(datetime.now().timestamp())/' \
    -e 's/if float(args.simul_time) < 0.005:/if float(args.simul_time) < 0.001:/' \
    $REF/run.py > $OUT/run_scratch.py
# The flow file run.py would generate (traffic_gen.py is unseeded): the one both simulators ran.
FLOW=L_25.00_CDF_AliStorage2019_N_128_T_2ms_B_100_flow
gunzip -c $HERE/flows-L25-2ms.txt.gz > $REF/config/$FLOW.txt

for lb in "${LBS[@]}"; do
  # 1. The reference, as its README runs it; run.py picks a random id for mix/output/ID/.
  before=$(ls $REF/mix/output 2>/dev/null || true)
  (cd $REF && PATH=$PY2BIN:$PATH /usr/bin/time -v -o $OUT/ref-$lb.time \
      python3 $OUT/run_scratch.py --cc dcqcn --lb $lb --pfc 1 --irn 0 --simul_time 0.002 \
      --netload 50 --topo leaf_spine_128_100G_OS2 --cdf AliStorage2019 > $OUT/ref-$lb.log 2>&1)
  id=$(comm -13 <(echo "$before") <(ls $REF/mix/output) | head -1)
  rm -rf $OUT/ref-$lb && cp -r $REF/mix/output/$id $OUT/ref-$lb

  # 2. ns3-fabric on that run's own config.txt, from the same directory (its paths are relative
  #    to it). ConWeave's LetFlow and CONGA constants are set in network-load-balance.cc:61-68,
  #    not in the config: given here.
  extra=()
  [[ $lb == letflow ]] && extra=(--set flowlet.gap=100us)
  [[ $lb == conga ]] && extra=(--set conga.flowlet_gap=100us --set conga.dre_period=50us \
                               --set conga.dre_alpha=0.2)
  # ConWeave's reorder queues sit outside its MMU (switch-node.cc:198-214): held frames leave the
  # buffer's accounting (ns3-fabric's default keeps them charged).
  [[ $lb == conweave ]] && extra=(--set conweave.hold_in_buffer=false)
  rm -rf $OUT/fabric-$lb
  if (cd $REF && /usr/bin/time -v -o $OUT/fabric-$lb.time $FABRIC_RUN \
        --hpcc-config $OUT/ref-$lb/config.txt --hpcc-simulator conweave "${extra[@]}" \
        --out $OUT/fabric-$lb > $OUT/fabric-$lb.log 2>&1); then :; else
    echo "ns3-fabric did not run $lb (see $OUT/fabric-$lb.log)"; rm -rf $OUT/fabric-$lb
  fi
done
# Debian's python3 has matplotlib for slowdown.png
${PYTHON:-/usr/bin/python3} $HERE/compare.py $OUT
