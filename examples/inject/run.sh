#!/bin/sh
# Runs every example campaign and writes their summary tables to
# docs/inject-examples.md (the FlexGripPlus ones need the shared oracle
# data: GPUISA_SHARED, default ../../../shared from here).
#   sh examples/inject/run.sh [gpuisa binary]
set -e
cd "$(dirname "$0")"
GPUISA=${1:-go run ../../cmd/gpuisa}
if [ -z "${GPUISA_SHARED:-}" ]; then
	# ../shared beside the repository, or beside a worktree's parent
	for d in ../../../shared ../../../../shared; do
		[ -d "$d/oracle" ] && GPUISA_SHARED=$(cd "$d" && pwd) && break
	done
fi
export GPUISA_SHARED
out=../../docs/inject-examples.md
tmp=$(mktemp -d)
{
	echo "# Example campaigns: summary tables"
	echo
	echo "Written by \`sh examples/inject/run.sh\` from the campaigns under [examples/inject/](../examples/inject/);"
	echo "every figure is a share of the experiment's injections with its 95% Wilson interval"
	echo "([inject.md](inject.md) says what the models, groups and outcomes are). The runs are"
	echo "deterministic: the same campaign gives these tables on any machine."
} > "$out"
for c in maxwell/*.campaign.json fermi/*.campaign.json usse/*.campaign.json flexgrip/*.campaign.json; do
	name=${c%.campaign.json}
	$GPUISA inject -progress 0 -o "$tmp/$(echo $name | tr / _)" "$c" > "$tmp/summary.md" 2> "$tmp/err" || { cat "$tmp/err"; exit 1; }
	{
		echo
		echo "## $name"
		echo
		echo "\`gpuisa inject examples/inject/$c\`"
		echo
		cat "$tmp/summary.md"
	} >> "$out"
done
rm -rf "$tmp"
