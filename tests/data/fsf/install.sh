#!/usr/bin/env bash
# Install Fairy-Stockfish for Murk's reference perft numbers.  Idempotent.
#
# Debian's package (apt-get install fairy-stockfish) is Fairy-Stockfish 11.1 (2020): too old, it lacks
# Betza custom pieces and several variant options used by tests/data/fsf/variants.ini.  So we build a
# current Fairy-Stockfish from the C++ sources shipped in the pyffish source distribution on PyPI
# (pyffish 0.0.90 = upstream Fairy-Stockfish, its src/ directory including main.cpp), with g++ from apt.
#
# Result: $FSF_PREFIX/fairy-stockfish (default /usr/local/bin/fairy-stockfish), version string
# "Fairy-Stockfish pyffish-0.0.90".  Build flags: 64-bit bitboards (no LARGEBOARDS: 8x8 and 6x8 fit),
# ALLVARS, NNUE embedding off (perft needs no network), x86-64 popcnt/sse4.1 like upstream ARCH=x86-64-modern.
#
# Usage: bash tests/data/fsf/install.sh        (FSF_PREFIX=/some/dir to install elsewhere)
set -euo pipefail
PYFFISH_VERSION=0.0.90
PYFFISH_SHA256=4a79601d85f392bce03705a275fb5f03dc44a554b26d32d518fb6887d772f701
FSF_PREFIX=${FSF_PREFIX:-/usr/local/bin}
BIN="$FSF_PREFIX/fairy-stockfish"
WANT="Fairy-Stockfish pyffish-$PYFFISH_VERSION"

if [ -x "$BIN" ] && echo quit | "$BIN" 2>/dev/null | head -1 | grep -q "^$WANT"; then
    echo "already installed: $BIN ($WANT)"; exit 0
fi

SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
if ! command -v g++ >/dev/null || ! command -v python3 >/dev/null; then
    $SUDO apt-get update
    $SUDO apt-get install -y g++ python3 python3-pip
fi
PIP="python3 -m pip"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
$PIP download "pyffish==$PYFFISH_VERSION" --no-binary :all: --no-deps -d . >/dev/null
echo "$PYFFISH_SHA256  pyffish-$PYFFISH_VERSION.tar.gz" | sha256sum -c - >/dev/null
tar xzf "pyffish-$PYFFISH_VERSION.tar.gz"
cd "pyffish-$PYFFISH_VERSION/src"
sed -i "s/^const string Version = \"\";/const string Version = \"pyffish-$PYFFISH_VERSION\";/" misc.cpp
SRCS=$(ls *.cpp syzygy/*.cpp nnue/*.cpp nnue/features/*.cpp | grep -v -e '^pyffish.cpp$' -e '^ffishjs.cpp$')
FLAGS="-std=c++17 -O3 -DNDEBUG -DIS_64BIT -DALLVARS -DNNUE_EMBEDDING_OFF -DUSE_POPCNT -DUSE_SSE41 -DUSE_SSSE3 -DUSE_SSE2 -msse4.1 -mssse3 -msse3 -mpopcnt -m64 -fno-exceptions -Wno-date-time"
JOBS=$(nproc 2>/dev/null || echo 2)
echo "$SRCS" | xargs -P "$JOBS" -I{} sh -c 'g++ '"$FLAGS"' -c {} -o $(echo {} | tr / _).o'
g++ -O3 -m64 -o fairy-stockfish ./*.o -lpthread
$SUDO mkdir -p "$FSF_PREFIX"
$SUDO install -m 755 fairy-stockfish "$BIN"
echo quit | "$BIN" | head -1
