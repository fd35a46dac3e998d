#!/usr/bin/env bash
# listspeed.sh times `BIN dis -arch ARCH FILE` for several binaries side by
# side: RUNS rounds, each running every binary once in turn, each run to a
# new regular file (the old one removed, then sync) with stderr discarded.
# Alternating cancels most of a shared machine's drift; it prints each
# binary's median, first quartile and best wall time, and the line count.
#
#   tools/listspeed.sh RUNS ARCH FILE BIN...
#   tools/listspeed.sh 21 sgx543 /tmp/lb/sgx543_valid.bin /tmp/gpuisa-old /tmp/gpuisa-new
#
# Inputs: tools/listbench writes them. The output files go to
# ${LISTSPEED_DIR:-/tmp/listspeed} (a regular filesystem, as users list to).
set -euo pipefail
if [ $# -lt 4 ]; then
	sed -n '2,12p' "$0" >&2
	exit 2
fi
runs=$1 arch=$2 file=$3
shift 3
dir=${LISTSPEED_DIR:-/tmp/listspeed}
mkdir -p "$dir"
declare -A times
for ((i = 0; i < runs; i++)); do
	for bin in "$@"; do
		out=$dir/$(basename "$bin").txt
		rm -f "$out"
		sync
		start=$(date +%s%N)
		"$bin" dis -arch "$arch" "$file" > "$out" 2> /dev/null || true
		end=$(date +%s%N)
		times[$bin]+="$(((end - start) / 1000)) "
	done
done
for bin in "$@"; do
	lines=$(grep -c '' "$dir/$(basename "$bin").txt")
	printf '%s: ' "$(basename "$bin")"
	tr ' ' '\n' <<< "${times[$bin]}" | grep . | sort -n | awk -v lines="$lines" '{t[NR] = $1}
		END {printf "median %.1f ms, first quartile %.1f, best %.1f; %d lines, %.1fM lines/s by the median\n",
			t[int((NR + 1) / 2)] / 1000, t[int((NR + 3) / 4)] / 1000, t[1] / 1000, lines, lines / t[int((NR + 1) / 2)]}'
done
