#!/usr/bin/env bash
# Fetch what install.sh --offline needs, on a machine with internet, for a table that has none:
#
#   systemd/fetch-offline.sh DIR [--python-version 3.11] [--no-debs] [--record]
#
#   DIR/wheels/   the Python packages tianhei needs, as aarch64 wheels for the Pi's Python (pip download
#                 --platform manylinux..._aarch64 --only-binary=:all:), plus setuptools and wheel, which pip needs
#                 to install tianhei itself from the checkout with no index
#   DIR/debs/     the Debian packages install.sh installs, as .debs (apt-get install --download-only): fetched
#                 only when this machine is an arm64 Debian like the table's (a Pi with internet, or an arm64
#                 chroot); elsewhere fetch them there (docs/system-test.md says how) or leave them out when the
#                 table already has them
#   DIR/broker-debs/  Mosquitto 2.0.15 or later from Debian's bookworm-backports, for the club's broker Pi
#                 (systemd/install-broker.sh --offline DIR): fetched with the .debs, by
#                 systemd/mosquitto-package.sh --download, which adds the backports source to this machine
#
#   --record      also what install.sh --record needs (the [record] extra's wheels, sox's .debs)
#
# Then copy the checkout and DIR to the table and run: sudo systemd/install.sh --profile P --offline DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir="" pyver=3.11 debs=1 record=""
while [ $# -gt 0 ]; do
    case "$1" in
        --python-version) pyver=${2:-}; shift 2 ;;
        --no-debs) debs=0; shift ;;
        --record) record=--record; shift ;;
        -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fetch-offline.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
        *) dir=$1; shift ;;
    esac
done
[ -n "$dir" ] || { echo "fetch-offline.sh: say where to put the bundle: fetch-offline.sh DIR" >&2; exit 2; }
mkdir -p "$dir/wheels"
# tianhei's dependencies, from pyproject.toml (the one list); setuptools and wheel build tianhei itself
mapfile -t reqs < <(python3 - "$src/pyproject.toml" "$record" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as f:
    data = tomllib.load(f)
extra = data["project"]["optional-dependencies"]["record"] if sys.argv[2] else []
for req in data["project"]["dependencies"] + data["build-system"]["requires"] + extra:
    print(req)
PY
)
# Raspberry Pi OS bookworm has glibc 2.36: wheels for any manylinux up to that
platforms=(--platform manylinux2014_aarch64)
for minor in 24 26 27 28 31 34 35 36; do platforms+=(--platform "manylinux_2_${minor}_aarch64"); done
echo "[wheels]   pip download ${#reqs[@]} requirements for aarch64, Python $pyver, into $dir/wheels"
python3 -m pip download --quiet --dest "$dir/wheels" --only-binary=:all: "${platforms[@]}" \
    --python-version "$pyver" --implementation cp "${reqs[@]}"
if [ "$debs" = 1 ]; then
    if [ "$(dpkg --print-architecture 2>/dev/null || true)" = arm64 ]; then
        packages=$(bash "$src/systemd/install.sh" --dry-run --profile bus-16 $record \
                   | sed -n 's/^\[packages\] *apt-get install -y \(--no-install-recommends \)\{0,1\}//p')
        echo "[debs]     apt-get install --download-only $packages"
        mkdir -p "$dir/debs"
        apt-get update -q
        # shellcheck disable=SC2086
        apt-get install -y -q --no-install-recommends --download-only -o Dir::Cache::archives="$(cd "$dir/debs" && pwd)" $packages
        rm -f "$dir/debs/lock"; rm -rf "$dir/debs/partial"
        echo "[debs]     the club broker's Mosquitto from bookworm-backports into $dir/broker-debs"
        sh "$src/systemd/mosquitto-package.sh" --download "$dir/broker-debs"
    else
        echo "[debs]     not fetched: this is not an arm64 Debian (the .debs must be the table's own);"
        echo "           docs/system-test.md says how to fetch them, or leave them out if the table has them"
    fi
fi
echo "Bundle in $dir: copy it and the checkout to the table, then sudo systemd/install.sh --offline $dir ..."
