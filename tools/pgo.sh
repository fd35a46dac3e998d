#!/bin/sh
# pgo.sh rewrites cmd/gpuisa/default.pgo, the CPU profile `go build` and
# `go install` optimise the gpuisa command with (profile-guided
# optimisation: hot calls inlined). The profile is of the streamed
# listings of every ISA (dis -arch, and sm_5x's), taken from the listing
# benchmarks of the isa packages: random words, random valid instructions
# and, with ../shared present, the oracle's real code.
#
#	tools/pgo.sh            # about a minute
#
# The profile only steers the compiler: a stale one makes no listing
# wrong, and the listings' tests run without it.
set -eu
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
profile() { # package, benchmarks, iterations
	go test "./isa/$1" -run '^$' -bench "$2" -benchtime "$3" -cpuprofile "$tmp/$1.prof" > "$tmp/$1.txt"
}
profile usse 'WriteListingRandom$|WriteListingRandomBytes|WriteListingFrom$' 20x
profile tesla 'WriteListingRandom$|WriteListingWords|WriteListingReal' 20x
profile fermi 'WriteListingRandom$|WriteListingRandomBytes|WriteListingOracle$' 20x
profile maxwell 'WriteListingRandom$|WriteListingFile' 5x
go tool pprof -proto "$tmp"/*.prof > cmd/gpuisa/default.pgo
echo "cmd/gpuisa/default.pgo: $(wc -c < cmd/gpuisa/default.pgo) bytes"
