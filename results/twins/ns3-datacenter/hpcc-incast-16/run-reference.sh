#!/bin/bash
# Runs inet-tub/ns3-datacenter's PowerTCP burst program (built: ./ns3 configure -d optimized && ./ns3 build
# in simulator/ns-3.39) on the configs of this directory, as its script-burst.sh invokes it.
#   NS3DC=/path/to/ns3-datacenter ./run-reference.sh hpcc-16 hpcc-16-mi5 hpcc-16-int16 hpcc-2 hpcc-2-mi5 dcqcn-16
#   NS3DC=/path/to/ns3-datacenter ./run-reference.sh jitter      # hpcc-16 with starts spread by up to 100 ns
# Writes mix/fct-NAME.txt (the reference's qp_finish lines) and out/NAME.out (its stdout: PrintResults lines).
set -e
: "${NS3DC:?set NS3DC to a checkout of inet-tub/ns3-datacenter}"
BIN=$NS3DC/simulator/ns-3.39/build/examples/PowerTCP/ns3.39-powertcp-evaluation-burst-optimized
cd "$(dirname "$0")"
mkdir -p mix out
names=("$@")
if [[ ${names[0]} == jitter ]]; then
  python3 make-jitter.py
  names=(); for s in $(seq 1 10); do names+=(hpcc-16-j$s); done
fi
for name in "${names[@]}"; do
  case $name in
    dcqcn*) args="--algorithm=1 --wien=false --delayWien=false --windowCheck=0";;
    *)      args="--algorithm=3 --wien=false --delayWien=false --windowCheck=1";;
  esac
  $BIN --conf=config-$name.txt $args > out/$name.out
  python3 summarise.py reference $name
done
