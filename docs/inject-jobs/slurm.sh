#!/bin/sh
# A fault-injection campaign as a Slurm job array: task i runs shard i of N
# (the injections whose id is i modulo N) into results-i-of-N.jsonl in the
# shared output directory; afterwards one merge gives the campaign's
# results, byte for byte what a single process writes.
#
#   sbatch --array=0-63 docs/inject-jobs/slurm.sh CAMPAIGN.json OUTDIR
#   gpuisa inject merge -o OUTDIR/results.jsonl OUTDIR/results-*-of-64.jsonl
#
# A shard that is killed (preempted, out of time) resumes where it stopped
# when the task is run again: finished injections are in its results file.
#SBATCH --job-name=gpuisa-inject
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=inject-%A_%a.log
set -eu
campaign=$1
out=$2
shards=${SLURM_ARRAY_TASK_COUNT:?run as a job array: sbatch --array=0-(N-1)}
gpuisa inject -o "$out" -shard "$SLURM_ARRAY_TASK_ID/$shards" \
	-workers "${SLURM_CPUS_PER_TASK:-1}" -progress 60s "$campaign"
