#!/bin/sh
# A fault-injection campaign on one box with GNU parallel: N shards as N
# processes (or over ssh with parallel -S host1,host2), then one merge.
# (gpuisa inject alone already uses every core of one machine; shards are
# for several machines, or to run a campaign in pieces.)
#
#   sh docs/inject-jobs/parallel.sh CAMPAIGN.json OUTDIR [N]
set -eu
campaign=$1
out=$2
n=${3:-8}
seq 0 $((n - 1)) | parallel --halt now,fail=1 \
	gpuisa inject -o "$out" -shard {}/"$n" -workers 1 -progress 0 "$campaign" ">" /dev/null
gpuisa inject merge -o "$out/results.jsonl" $(seq -f "$out/results-%g-of-$n.jsonl" 0 $((n - 1)))
