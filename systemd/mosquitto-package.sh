#!/bin/sh
# Mosquitto 2.0.15 or later, the club's broker and the tests' (docs/league.md, "Which Mosquitto"): before 2.0.15
# (Debian 12 has 2.0.11) a few bridge TLS handshakes cut short make the broker spin for good. On Debian bookworm
# (and Raspberry Pi OS bookworm, whose Debian part is Debian's) it comes from Debian's own bookworm-backports.
#
#   systemd/mosquitto-package.sh [--dry-run] [--quiet] [--offline DIR | --download DIR]
#
#   (nothing)        install or upgrade Mosquitto where it is missing or older than 2.0.15: add Debian's
#                    bookworm-backports source (main only; Debian's own pin, 100, so nothing else comes from it
#                    unasked) and apt-get install -t bookworm-backports mosquitto; nothing when it is new enough
#   --dry-run        print what it would do and do nothing
#   --quiet          say nothing when Mosquitto is new enough already (./dev test)
#   --offline DIR    no internet: dpkg -i the .debs in DIR (as --download DIR fetched them) whose package is
#                    missing here, or is a backport newer than the one installed; never one that would move a
#                    package of the base system (libc6, libssl3, ...) to another version
#   --download DIR   on a machine with internet of the Pi's kind (arm64 Debian bookworm): fetch the backports
#                    Mosquitto and the packages it depends on into DIR, for --offline DIR (this machine gets the
#                    backports source too)
#
# Exit status: 0 when Mosquitto is (or, on a dry run, would be) new enough; 1 when it could not be made so, with
# one line saying what to do. Checking an installed Mosquitto that is new enough starts one process.
# (TIANHEI_MOSQUITTO and TIANHEI_OS_RELEASE name another broker binary and os-release file: tests/league.)
set -eu
NEEDED=2.0.15
SOURCE=/etc/apt/sources.list.d/debian-backports.sources
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
dry=0 quiet=0 offline="" download=""
while [ $# -gt 0 ]; do
    case "$1" in
        --dry-run) dry=1; shift ;;
        --quiet) quiet=1; shift ;;
        --offline) offline=${2:-}; shift 2 ;;
        --download) download=${2:-}; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "mosquitto-package.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
done
say() { printf '%-11s %s\n' "[broker]" "$1"; }
run() { say "$*"; [ "$dry" = 1 ] || "$@"; }

# The version the broker says on its first line of -h ("mosquitto version 2.0.21"), empty when not installed.
installed() {
    bin=${TIANHEI_MOSQUITTO:-/usr/sbin/mosquitto}
    [ -x "$bin" ] || bin=$(command -v mosquitto 2>/dev/null) || return 0
    "$bin" -h 2>&1 | sed -n 's/^mosquitto version \([0-9][0-9.]*\).*/\1/p' | head -n 1
}
# at_least A B: is dotted version A >= B (numerically, part by part)?
at_least() {
    awk -v a="$1" -v b="$2" 'BEGIN { n = split(a, x, "."); m = split(b, y, "."); if (m > n) n = m
        for (i = 1; i <= n; i++) { if (x[i] + 0 > y[i] + 0) exit 0; if (x[i] + 0 < y[i] + 0) exit 1 } exit 0 }'
}

have=$(installed)
if [ -z "$download" ] && [ -n "$have" ] && at_least "$have" "$NEEDED"; then
    [ "$quiet" = 1 ] || say "Mosquitto $have is $NEEDED or later: left as it is"
    exit 0  # one process started, so an already set-up ./dev test stays quick
fi
what="Mosquitto ${have:-(not installed)}"
if [ "$dry" = 0 ] && [ "$(id -u)" != 0 ]; then
    echo "mosquitto-package.sh: $what; $NEEDED or later is needed: run it as root (sudo sh $0)" >&2
    exit 1
fi

if [ -n "$offline" ]; then
    debs=""
    for deb in "$offline"/*.deb; do
        [ -e "$deb" ] || continue
        name=$(dpkg-deb -f "$deb" Package) version=$(dpkg-deb -f "$deb" Version)
        now=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null | sed -n 's/^install ok installed //p')
        if [ -z "$now" ]; then debs="$debs $deb"
        else case "$version" in
            *~bpo*) dpkg --compare-versions "$version" gt "$now" && debs="$debs $deb" ;;
        esac; fi
    done
    if [ -z "$debs" ]; then
        echo "mosquitto-package.sh: $what is older than $NEEDED and $offline has no Mosquitto .debs" \
             "(systemd/fetch-offline.sh fetches them into its broker-debs/)" >&2
        exit 1
    fi
    # dpkg, not apt: there is no index without internet; given all at once, their order does not matter
    # shellcheck disable=SC2086
    run env DEBIAN_FRONTEND=noninteractive dpkg -i $debs
    [ "$dry" = 1 ] || { have=$(installed); at_least "${have:-0}" "$NEEDED"; } || {
        echo "mosquitto-package.sh: the .debs of $offline left Mosquitto ${have:-not installed}, not $NEEDED or later" >&2
        exit 1; }
    exit 0
fi

# Where backports can come from: Debian bookworm, or Raspberry Pi OS bookworm on arm64 (ID=debian; its Debian
# part is Debian's own archive). 32-bit Raspberry Pi OS (ID=raspbian) is built for ARMv6 and has no backports.
id="" codename="" release=${TIANHEI_OS_RELEASE:-/etc/os-release}
if [ -r "$release" ]; then
    id=$(sed -n 's/^ID=//p' "$release" | tr -d '"')
    codename=$(sed -n 's/^VERSION_CODENAME=//p' "$release" | tr -d '"')
fi
if [ "$id" != debian ] || [ "$codename" != bookworm ]; then
    os="${id:-this system}${codename:+ $codename}"
    echo "mosquitto-package.sh: $what; the league's bridge needs $NEEDED or later and this script knows how to get" \
         "it only on Debian bookworm (from bookworm-backports), not on $os: install Mosquitto $NEEDED or later" \
         "from your system's packages (Debian 13 and Ubuntu 24.04 have it) or from mosquitto.org" >&2
    exit 1
fi
if [ ! -r "$KEYRING" ]; then
    echo "mosquitto-package.sh: $KEYRING is missing (apt-get install debian-archive-keyring), so Debian's" \
         "backports cannot be trusted" >&2
    exit 1
fi
if grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    say "Debian's bookworm-backports is an apt source already"
else
    say "write $SOURCE (Debian's bookworm-backports, main)"
    if [ "$dry" = 0 ]; then
        cat > "$SOURCE.tmp" <<SRC
# Written by tianhei (systemd/mosquitto-package.sh): Mosquitto $NEEDED or later for the league's bridge.
# Debian's backports are pinned at 100 by Debian itself: only what is installed with -t bookworm-backports comes
# from here (and its upgrades), the rest of the system stays on bookworm.
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: $KEYRING
SRC
        mv "$SOURCE.tmp" "$SOURCE"
    fi
fi
run apt-get update -qq
if [ -n "$download" ]; then
    mkdir -p "$download"
    archives=$(cd "$download" && pwd)
    # apt-get download: each one fetched whatever this machine has installed (the Pi may lack what it has).
    # Mosquitto and its own library from backports, what else it depends on from bookworm (a backports systemd
    # library would not match the Pi's systemd); --offline takes only what the Pi lacks or the newer Mosquitto.
    needs=$(apt-cache depends -t bookworm-backports mosquitto | sed -n 's/^ *|\{0,1\}Depends: \([^< ][^ ]*\).*/\1/p' \
            | grep -vx 'libmosquitto1' | sort -u | tr '\n' ' ')
    # shellcheck disable=SC2086
    (cd "$archives" && run apt-get download -q -o APT::Sandbox::User=root \
        mosquitto/bookworm-backports libmosquitto1/bookworm-backports $needs)
    exit 0
fi
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends -t bookworm-backports mosquitto
[ "$dry" = 1 ] && exit 0
have=$(installed)
at_least "${have:-0}" "$NEEDED" || {
    echo "mosquitto-package.sh: bookworm-backports left Mosquitto ${have:-not installed}, not $NEEDED or later" >&2
    exit 1; }
say "Mosquitto $have installed"
