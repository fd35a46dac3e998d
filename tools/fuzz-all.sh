#!/usr/bin/env bash
# fuzz-all.sh runs fuzz targets one at a time, each to an execution count (or for a
# time), and appends one ledger line per target to docs/fuzzing.md.
#
#   tools/fuzz-all.sh [-n EXECS | -t DURATION] [-m MINIMIZE] [-p PARALLEL] [-l LEDGER|-]
#                     [-k] TARGET...
#
# TARGET is PKG:Fuzz (e.g. ./isa/tesla:FuzzDecode), PKG (all its targets), or "all"
# (every Fuzz function in the module, in file order). Defaults: -n 10000000, -m 100x,
# -p 1, -l docs/fuzzing.md. -t 12s measures speed instead (the ledger line then
# gives executions per second). -k keeps going after a finding.
#
# Each package is built once (go test -c -fuzz=., so it carries the same coverage
# instrumentation go test -fuzz adds) and its binary is run in the package directory,
# so committed seeds in testdata/fuzz are used and findings are written there. The
# fuzz cache is go test's own ($GOCACHE/fuzz/...), so interesting inputs carry over.
#
# The count reported is the `execs:` figure of go's final status line; it includes
# the seed corpus and cached corpus (baseline coverage) and minimisation runs.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

execs=10000000
duration=
minimize=100x
parallel=1
ledger=docs/fuzzing.md
keepgoing=
while getopts "n:t:m:p:l:k" opt; do
	case $opt in
	n) execs=$OPTARG ;;
	t) duration=$OPTARG ;;
	m) minimize=$OPTARG ;;
	p) parallel=$OPTARG ;;
	l) ledger=$OPTARG ;;
	k) keepgoing=1 ;;
	*) sed -n '2,12p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -eq 0 ]; then
	sed -n '2,12p' "$0" >&2
	exit 2
fi

module=$(go list -m)
gocache=$(go env GOCACHE)
# commitNow is the commit a package is built from (+dirty: Go files differ
# from it), taken when it is built: the worktree may move on during a long run.
commitNow() {
	local c
	c=$(git rev-parse --short HEAD)
	if [ -n "$(git status --porcelain --untracked-files=no -- '*.go')" ]; then
		c="$c+dirty"
	fi
	echo "$c"
}
# FUZZ_CACHE replaces go's fuzz cache (e.g. a fresh directory, to time a target
# without the baseline run over a large cached corpus).
cache=${FUZZ_CACHE:-$gocache/fuzz/$module}
bindir=${FUZZ_BINDIR:-${TMPDIR:-/tmp}/gpuisa-fuzz-bin}
mkdir -p "$bindir"
# The fuzzing processes' temporary files (go's shared memory with each
# worker, which every input is written to, and the targets' own files) go
# to memory where there is one: on a disk file system rewriting a file
# costs about a millisecond, more than most executions. FUZZ_TMPDIR
# chooses another directory.
fuzztmp=${FUZZ_TMPDIR:-/dev/shm}
if [ ! -d "$fuzztmp" ] || [ ! -w "$fuzztmp" ]; then
	fuzztmp=${TMPDIR:-/tmp}
fi

# targets expands the arguments to lines "PKGDIR TARGET".
targets() {
	local arg pkg fn
	for arg in "$@"; do
		case $arg in
		all)
			grep -rn '^func Fuzz' --include='*_test.go' . | sort -t: -k1,1 -s |
				sed -E 's|^\./(.*)/[^/]*_test\.go:[0-9]+:func (Fuzz[A-Za-z0-9_]*)\(.*|\1 \2|'
			;;
		*:*)
			pkg=${arg%%:*}
			fn=${arg#*:}
			echo "${pkg#./} $fn"
			;;
		*)
			pkg=${arg#./}
			grep -hn '^func Fuzz' "$pkg"/*_test.go |
				sed -E "s|^[0-9]+:func (Fuzz[A-Za-z0-9_]*)\(.*|$pkg \1|"
			;;
		esac
	done
}

# stopAtCount PID LOG N interrupts the fuzzing process PID once the last
# status line in LOG shows at least N executions.
stopAtCount() {
	local pid=$1 log=$2 want=$3 n
	while kill -0 "$pid" 2>/dev/null; do
		n=$(grep -o 'execs: [0-9]*' "$log" 2>/dev/null | tail -1 | cut -d' ' -f2 || true)
		if [ -n "$n" ] && [ "$n" -ge "$want" ]; then
			kill -INT "$pid" 2>/dev/null
			return
		fi
		sleep 1
	done
}

declare -A built commits
status=0
while read -r pkg fn; do
	bin="$bindir/$(echo "$pkg" | tr / _).test"
	if [ -z "${built[$pkg]:-}" ]; then
		commits[$pkg]=$(commitNow)
		go test -c -fuzz=. -o "$bin" "./$pkg"
		built[$pkg]=1
	fi
	commit=${commits[$pkg]}
	if [ -n "$duration" ]; then
		limit=$duration
	else
		limit=${execs}x
	fi
	log="$bindir/$(echo "$pkg" | tr / _).$fn.log"
	start=$(date +%s.%N)
	# go gives each call to a worker a share of the executions left and
	# counts it as spent until the call returns: once less than a share is
	# left, only one worker at a time gets a call, so with -fuzztime Nx the
	# second half of an N-count run on two workers ran on one (-p 2, twelfth
	# session: half of both cores idle, the workers waiting on their pipes).
	# With more than one worker the run is given N x PARALLEL and
	# interrupted (SIGINT: go stops the workers and passes) once its
	# status line shows N.
	if [ -z "$duration" ] && [ "$parallel" -gt 1 ]; then
		limit=$((execs * parallel))x
		watchNote=", interrupted at ${execs}"
	fi
	echo "== $pkg $fn (-fuzztime $limit -fuzzminimizetime $minimize -parallel $parallel${watchNote:-})" >&2
	set +e
	(cd "$pkg" && TMPDIR=$fuzztmp exec "$bin" -test.run '^$' -test.fuzz "^$fn\$" -test.fuzztime "$limit" \
		-test.fuzzminimizetime "$minimize" -test.parallel "$parallel" \
		-test.fuzzcachedir "$cache/$pkg") >"$log" 2>&1 &
	pid=$!
	watcher=
	if [ -z "$duration" ] && [ "$parallel" -gt 1 ]; then
		stopAtCount "$pid" "$log" "$execs" &
		watcher=$!
	fi
	wait "$pid"
	rc=$?
	if [ -n "$watcher" ]; then
		kill "$watcher" 2>/dev/null
		wait "$watcher" 2>/dev/null
	fi
	set -e
	end=$(date +%s.%N)
	wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')
	n=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true) # none: still gathering the baseline
	n=${n:-0}
	if [ $rc -eq 0 ] && grep -q '^PASS' "$log"; then
		result=clean
	elif [ -n "$duration" ] && grep -q 'context deadline exceeded' "$log" &&
		! grep -q 'Failing input written' "$log"; then
		# go reports this when -fuzztime DURATION ends during a call to the
		# worker: nothing failed
		result="clean (go: context deadline exceeded at -fuzztime)"
	else
		input=$(grep -o 'testdata/fuzz/[^ ]*' "$log" | head -1 || true)
		result="finding ${input:-(see $log)}"
		status=1
	fi
	if [ -n "$duration" ]; then
		rate=$(awk -v n="$n" -v w="$wall" 'BEGIN { printf "%.0f", n / (w > 0 ? w : 1) }')
		line="| $(date -u +%Y-%m-%d) | $commit | $pkg | $fn | $n | ${wall}s | $rate/s | $result |"
	else
		line="| $(date -u +%Y-%m-%d) | $commit | $pkg | $fn | $n | ${wall}s | $result |"
	fi
	echo "$line" >&2
	tail -3 "$log" >&2
	case $ledger in
	-) ;;
	/*) echo "$line" >>"$ledger" ;;
	*) echo "$line" >>"$root/$ledger" ;;
	esac
	if [ $status -ne 0 ] && [ -z "$keepgoing" ]; then
		exit $status
	fi
done < <(targets "$@")
exit $status
