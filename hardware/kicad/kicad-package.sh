#!/bin/sh
# KiCad 9 for the seat board's checks and fab files (docs/hardware.md): the headless kicad-cli and pcbnew's Python
# API, with the symbol and footprint libraries, from Debian's bookworm-backports (bookworm itself has KiCad 6). The
# 3D models (kicad-packages3d, ~4.7 GB) are left out: the render shows the board and its pads, not part bodies.
#
#   hardware/kicad/kicad-package.sh [--dry-run] [--quiet]
#
# Exit status: 0 when kicad-cli 9 is (or, on a dry run, would be) installed; 1 with one line saying what to do.
# When KiCad 9 is installed already it starts one process (kicad-cli version), so ./dev test stays quick.
set -eu
NEEDED=9
PACKAGES="kicad kicad-symbols kicad-footprints"
dry=0 quiet=0
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) dry=1; shift ;;
        --quiet) quiet=1; shift ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "kicad-package.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
done
say() { printf '%-11s %s\n' "[kicad]" "$1"; }
run() { say "$*"; [ "$dry" = 1 ] || "$@"; }

# The major version kicad-cli says ("9.0.3" -> 9), empty when it is not installed.
installed() {
    command -v kicad-cli >/dev/null 2>&1 || return 0
    kicad-cli version 2>/dev/null | sed -n 's/^\([0-9][0-9]*\)\..*/\1/p' | head -n 1
}

have=$(installed)
if [ -n "$have" ] && [ "$have" -ge "$NEEDED" ] && [ -d /usr/share/kicad/footprints ]; then
    [ "$quiet" = 1 ] || say "KiCad $(kicad-cli version) is installed: left as it is"
    exit 0
fi
if [ "$dry" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "kicad-package.sh: KiCad $NEEDED is not installed: run it as root (sudo sh $0)" >&2
    exit 1
fi
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null | tr -d '"')
if [ "$codename" != bookworm ]; then
    echo "kicad-package.sh: this script installs KiCad $NEEDED only on Debian bookworm (from bookworm-backports), not" \
         "on ${codename:-this system}: install KiCad $NEEDED (kicad-cli, its Python module, symbols, footprints) from" \
         "your system's packages or kicad.org" >&2
    exit 1
fi
# Debian's bookworm-backports as an apt source (systemd/mosquitto-package.sh writes the same when it needs it).
# Debian pins backports at 100: only what is installed with -t bookworm-backports comes from there.
SOURCE=/etc/apt/sources.list.d/debian-backports.sources
if ! grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "write $SOURCE (Debian's bookworm-backports, main)"
    if [ "$dry" = 0 ]; then
        printf '%s\n' "# Written by tianhei (hardware/kicad/kicad-package.sh): KiCad 9 for the seat board." \
            "Types: deb" "URIs: http://deb.debian.org/debian" "Suites: bookworm-backports" "Components: main" \
            "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg" > "$SOURCE.tmp"
        mv "$SOURCE.tmp" "$SOURCE"
    fi
fi
run apt-get update -qq
# shellcheck disable=SC2086
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -t bookworm-backports $PACKAGES
[ "$dry" = 1 ] && exit 0
have=$(installed)
[ -n "$have" ] && [ "$have" -ge "$NEEDED" ] || {
    echo "kicad-package.sh: bookworm-backports left kicad-cli ${have:-not installed}, not $NEEDED" >&2; exit 1; }
say "KiCad $(kicad-cli version) installed"
