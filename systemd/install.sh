#!/usr/bin/env bash
# Install Tianhei as a service on Raspberry Pi OS, from a checkout:
#
#   sudo systemd/install.sh [--profile compact-8|bus-16|sim] [--dry-run] [--root DIR] [--reconfigure]
#                           [--offline DIR] [--record]
#
#   --profile P     the table's hardware (asked when not given and a person is at the terminal)
#   --dry-run       print every change (packages, user, files, boot config, udev, units) and make none
#   --root DIR      write the files under DIR instead of / (a scratch root for tests and images); the steps
#                   that change the running system (packages, user, venv, systemctl, udev) are printed, not run
#   --reconfigure   write a new /etc/tianhei/tianhei.toml even if one exists (the old one is kept as .bak)
#   --offline DIR   no internet (a venue without it): the .debs from DIR/debs and the wheels from DIR/wheels,
#                   as systemd/fetch-offline.sh DIR fetched them; apt and pip reach no network
#   --record        also what recording the club's own judge at this table needs (the console's recording page,
#                   tianhei sounds record): sox and the [record] extra (numpy, pyloudnorm); offline, the bundle
#                   must have been fetched with fetch-offline.sh --record
#
# Idempotent: running it again upgrades the code and keeps the config, the decks, the journal and the remote's
# pairing key. The installed service (`tianhei serve`) waits for players on the configured hardware; on the sim
# profile nothing plays by itself. docs/security.md says who may read what.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

profile=""
dry=0
root="/"
reconfigure=0
offline=""
record=0
usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) profile=${2:-}; shift 2 ;;
        --profile=*) profile=${1#*=}; shift ;;
        --dry-run) dry=1; shift ;;
        --root) root=${2:-}; shift 2 ;;
        --root=*) root=${1#*=}; shift ;;
        --reconfigure) reconfigure=1; shift ;;
        --offline) offline=${2:-}; shift 2 ;;
        --offline=*) offline=${1#*=}; shift ;;
        --record) record=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
    esac
done

profiles="compact-8 bus-16 sim"
if [ -z "$profile" ]; then
    if [ -t 0 ]; then
        echo "Which table is this?"
        echo "  1) compact-8  eight seats wired to the Pi's own pins (I2C screens, NFC readers, buttons)"
        echo "  2) bus-16     up to sixteen seat nodes and the judge's radio remote on an RS-485 bus"
        echo "  3) sim        no seat hardware: the simulated table (a demonstration; nothing plays by itself)"
        read -r -p "profile [1-3]: " answer
        case "$answer" in 1|compact-8) profile=compact-8 ;; 2|bus-16) profile=bus-16 ;; 3|sim) profile=sim ;; esac
    fi
    if [ -z "$profile" ]; then
        echo "install.sh: say which table this is: --profile compact-8, --profile bus-16 or --profile sim" >&2
        exit 2
    fi
fi
case " $profiles " in *" $profile "*) ;; *)
    echo "install.sh: no profile '$profile'; choose one of: $profiles (hardware/profiles/)" >&2; exit 2 ;; esac
if [ -z "$root" ]; then echo "install.sh: --root needs a folder" >&2; exit 2; fi
if [ "$root" != "/" ]; then
    case "$root" in /*) ;; *) root="$(pwd)/$root" ;; esac
    root=${root%/}
    if [ "$dry" = 0 ]; then mkdir -p "$root" || { echo "install.sh: cannot use --root $root" >&2; exit 2; }; fi
fi
if [ -n "$offline" ]; then
    case "$offline" in /*) ;; *) offline="$(pwd)/$offline" ;; esac
    if [ ! -d "$offline/wheels" ]; then
        echo "install.sh: --offline $offline has no wheels/ folder (systemd/fetch-offline.sh $offline makes it)" >&2
        exit 2
    fi
fi
if [ "$dry" = 0 ] && [ "$root" = "/" ] && [ "$(id -u)" != 0 ]; then
    echo "install.sh: run it as root (sudo systemd/install.sh ...), or with --dry-run to see what it would do" >&2
    exit 2
fi

R() { if [ "$root" = "/" ]; then printf '%s' "$1"; else printf '%s%s' "$root" "$1"; fi; }
say() { printf '%-11s %s\n' "[$1]" "$2"; }
# A change to the running system: printed; run only for real on /.
system() {
    local kind=$1 what=$2; shift 2
    if [ "$dry" = 1 ]; then say "$kind" "$what"; return 0; fi
    if [ "$root" != "/" ]; then say "$kind" "$what (not run: --root)"; return 0; fi
    say "$kind" "$what"
    local started=$SECONDS
    "$@"
    # on a Pi the slow steps are the packages and the virtualenv: say how long they took
    if [ $((SECONDS - started)) -ge 5 ]; then say "$kind" "... took $((SECONDS - started)) s"; fi
}
# A file written from stdin with its mode (and owner, on / only); printed in full on a dry run.
write_file() {
    local kind=$1 path=$2 mode=$3 owner=${4:-root:root} content
    content=$(cat)
    if [ "$dry" = 1 ]; then
        say "$kind" "write $path (mode $mode, owner $owner):"
        printf '%s\n' "$content" | sed 's/^/            | /'
        return 0
    fi
    say "$kind" "write $path (mode $mode)"
    mkdir -p "$(dirname "$(R "$path")")"
    printf '%s\n' "$content" > "$(R "$path").tmp"
    chmod "$mode" "$(R "$path").tmp"
    if [ "$root" = "/" ]; then chown "$owner" "$(R "$path").tmp"; fi
    mv "$(R "$path").tmp" "$(R "$path")"
}
make_dir() {
    local kind=$1 path=$2 mode=$3 owner=${4:-root:root}
    if [ "$dry" = 1 ]; then say "$kind" "create $path/ (mode $mode, owner $owner)"; return 0; fi
    say "$kind" "create $path/ (mode $mode)"
    mkdir -p "$(R "$path")"
    chmod "$mode" "$(R "$path")"
    if [ "$root" = "/" ]; then chown "$owner" "$(R "$path")"; fi
}

[ "$dry" = 1 ] && echo "Dry run: every change install.sh would make for the $profile table; nothing is changed."

# --- packages -------------------------------------------------------------------------------------------------
# openssl: the console's HTTPS certificate; alsa-utils: ALSA's configuration and aplay/amixer (pygame's arm64
# wheel brings its own SDL and libasound, which read /usr/share/alsa); libglib2.0-0: the one library that wheel's
# mixer still takes from the system (its fluidsynth links libgthread: without it the table runs silent);
# espeak-ng: the fallback voice that says a variant file's lines the voice pack has no recording of yet
# (controller/voice/variant_lines.py: the 狼人杀 boards' calls)
packages="python3-venv rsync alsa-utils openssl libglib2.0-0 espeak-ng"
# 32-bit Raspberry Pi OS takes pygame from piwheels, built against Debian's SDL
[ "$(dpkg --print-architecture 2>/dev/null || true)" = armhf ] && packages="$packages libsdl2-mixer-2.0-0"
extras=""
case "$profile" in
    # python3-dev and swig: the [pi] extra's lgpio is built from source on the Pi (a bus table builds nothing)
    compact-8) packages="$packages python3-dev swig liblgpio-dev i2c-tools"; extras="pi" ;;
esac
# --record: sox finishes each take (Ogg Vorbis: libsox-fmt-all), arecord (alsa-utils, above) records on the Pi
if [ "$record" = 1 ]; then packages="$packages sox libsox-fmt-all"; extras="${extras:+$extras,}record"; fi
[ -n "$extras" ] && extras="[$extras]"
if [ -z "$offline" ]; then
    system packages "apt-get update" apt-get update
    # shellcheck disable=SC2086
    system packages "apt-get install -y --no-install-recommends $packages" apt-get install -y --no-install-recommends $packages
else
    # the .debs the bundle holds (what this system lacked when it was fetched); dpkg says which dependency is
    # missing if the bundle is short of one
    # Only the .debs this system does not have at that version: a bundle fetched on another machine may hold
    # packages that are installed already (reinstalling the kernel's or systemd's would only cost time and risk).
    debs=() have=0
    if [ -d "$offline/debs" ]; then
        for deb in "$offline"/debs/*.deb; do
            [ -e "$deb" ] || continue
            if [ "$root" = "/" ] && [ "$dry" = 0 ]; then
                name=$(dpkg-deb -f "$deb" Package) version=$(dpkg-deb -f "$deb" Version)
                if [ "$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null)" = "install ok installed $version" ]
                then have=$((have + 1)); continue; fi
            fi
            debs+=("$deb")
        done
    fi
    [ "$have" = 0 ] || say packages "$have .debs of $offline/debs are installed already at their version: left alone"
    missing_pkgs=""
    for p in $packages; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing_pkgs="$missing_pkgs $p"
    done
    if [ -z "$missing_pkgs" ] && [ "$root" = "/" ] && [ "$dry" = 0 ]; then
        say packages "all installed already:$(printf ' %s' $packages)"
    elif [ ${#debs[@]} = 0 ]; then
        if [ "$dry" = 1 ] || [ "$root" != "/" ]; then
            say packages "apt-get install -y$missing_pkgs (not run: no .debs in $offline/debs)"
        else
            echo "install.sh: --offline: these packages are missing and $offline/debs has no .debs:$missing_pkgs" >&2
            exit 1
        fi
    else
        # dpkg, not apt: apt wants an index to install local files from, and there is none without internet.
        # Given all at once, dpkg unpacks them all before configuring any, so their order does not matter.
        system packages "dpkg -i ${#debs[@]} .debs from $offline/debs ($packages)" \
            env DEBIAN_FRONTEND=noninteractive dpkg -i "${debs[@]}"
    fi
fi
pipfrom=""
[ -n "$offline" ] && pipfrom="--no-index --find-links $offline/wheels "

# --- the service's user ------------------------------------------------------------------------------------------
groups=""
case "$profile" in
    compact-8) groups="gpio i2c spi audio" ;;
    bus-16) groups="dialout audio" ;;
    sim) groups="audio" ;;
esac
if ! id tianhei >/dev/null 2>&1 || [ "$root" != "/" ]; then
    system user "useradd --system --home-dir /var/lib/tianhei --no-create-home --shell /usr/sbin/nologin tianhei" \
        useradd --system --home-dir /var/lib/tianhei --no-create-home --shell /usr/sbin/nologin tianhei
fi
for g in $groups; do
    if [ "$root" != "/" ] || getent group "$g" >/dev/null; then
        system user "usermod -aG $g tianhei" usermod -aG "$g" tianhei
    else
        say user "no group $g on this system (not Raspberry Pi OS?): tianhei is not added to it"
    fi
done

# --- the code ----------------------------------------------------------------------------------------------------
# --checksum: a file of a newer tree with the old one's size and time (an archive unpacked with its times, a
# one-character fix) is still copied; rsync's quick check alone kept the old one
system files "copy the code to /opt/tianhei (rsync, without .venv and .git)" \
    rsync -a --delete --checksum --exclude .venv --exclude .git --exclude /var "$src/" /opt/tianhei/
system files "create the virtualenv /opt/tianhei/.venv and install tianhei$extras into it${pipfrom:+ (pip ${pipfrom% })}" \
    sh -c "python3 -m venv /opt/tianhei/.venv && { [ -n '$offline' ] || /opt/tianhei/.venv/bin/pip install --upgrade pip; } \
           && /opt/tianhei/.venv/bin/pip install $pipfrom-e '/opt/tianhei$extras'"

# --- state and configuration -------------------------------------------------------------------------------------
make_dir files /var/lib/tianhei 0700 tianhei:tianhei
make_dir files /etc/tianhei 0755
make_dir files /etc/tianhei/decks 0755

players=12
[ "$profile" = compact-8 ] && players=8  # its eight seats
case "$profile" in
    bus-16) judge=remote; judge_note="the judge's radio remote on the seat bus (paired below)" ;;
    *) judge=none; judge_note="no judge's remote on this hardware: the table starts once the seats have checked in" ;;
esac
config=/etc/tianhei/tianhei.toml
if [ -f "$(R $config)" ] && [ "$reconfigure" = 0 ]; then
    say files "keep $config (it exists; --reconfigure writes a new one)"
else
    if [ -f "$(R $config)" ]; then
        say files "keep the old config as $config.bak"
        [ "$dry" = 1 ] || cp -p "$(R $config)" "$(R $config).bak"
    fi
    write_file files "$config" 0644 <<EOF
# Tianhei: the $profile table, written by systemd/install.sh. Check it with
#   sudo -u tianhei /opt/tianhei/.venv/bin/tianhei config check $config
# Every key is in docs/configuration.md.

[table]
hardware = "$profile"
language = "zh-CN"        # zh-CN or en
# $judge_note
judge = "$judge"

[game]
variant = "standard-2.0"  # tianhei variants; at check-in the judge may choose another on the remote
players = $players$(printf '%*s' $((16 - ${#players})) '')# without a judge's remote: the seats that check in play
# deck = "example-12"     # a deck of NFC role cards in /etc/tianhei/decks (tianhei deck enroll NAME)

[voice]
pack = "zh-CN"
volume = 0.8

[journal]
path = "/var/lib/tianhei/journal.sqlite"   # every role and night choice: readable by the tianhei user only

[remote]
key_file = "/var/lib/tianhei/remote.key"   # the judge's remote's pairing key (tianhei remote pair), 0600
EOF
fi

# --- the judge's remote ------------------------------------------------------------------------------------------
if [ "$profile" = bus-16 ]; then
    if [ -f "$(R /var/lib/tianhei/remote.key)" ]; then
        say pairing "keep the remote's pairing key /var/lib/tianhei/remote.key"
    else
        system pairing "make the judge's remote's pairing key /var/lib/tianhei/remote.key (mode 0600, owner tianhei)" \
            runuser -u tianhei -- /opt/tianhei/.venv/bin/tianhei remote pair --config "$config"
    fi
fi

# --- boot configuration ------------------------------------------------------------------------------------------
if [ "$profile" = compact-8 ]; then
    system boot "raspi-config nonint do_i2c 0 (enable I2C)" sh -c "raspi-config nonint do_i2c 0 || true"
    system boot "raspi-config nonint do_spi 0 (enable SPI)" sh -c "raspi-config nonint do_spi 0 || true"
    boot=/boot/firmware/config.txt
    line='dtparam=i2c_arm_baudrate=400000'
    if grep -qs '^dtparam=i2c_arm_baudrate=' "$(R $boot)"; then
        say boot "keep the I2C speed already set in $boot"
    elif [ "$dry" = 1 ]; then
        say boot "append '$line' to $boot (the seats' screens at 400 kHz)"
    else
        say boot "append '$line' to $boot"
        mkdir -p "$(dirname "$(R $boot)")"
        echo "$line" >> "$(R $boot)"
    fi
else
    say boot "no change to the boot configuration (the $profile table needs no I2C or SPI on the Pi)"
fi

# --- udev and the service ----------------------------------------------------------------------------------------
write_file udev /etc/udev/rules.d/99-tianhei.rules 0644 < "$src/systemd/99-tianhei.rules"
if [ "$profile" = bus-16 ]; then  # the profile's serial port is the name the rule gives the adapter
    port=$(sed -n 's/^port *= *"\([^"]*\)".*/\1/p' "$src/hardware/profiles/bus-16.toml")
    case "$port" in
        /dev/tianhei-bus) say udev "the USB RS-485 adapter appears as $port, the bus-16 profile's [bus] port" ;;
        *) say udev "warning: the bus-16 profile's [bus] port is $port, not /dev/tianhei-bus (the udev rule's name)" ;;
    esac
fi
system udev "udevadm control --reload-rules && udevadm trigger" sh -c "udevadm control --reload-rules && udevadm trigger || true"
write_file units /etc/systemd/system/tianhei.service 0644 < "$src/systemd/tianhei.service"
system units "systemctl daemon-reload" systemctl daemon-reload
system check "tianhei config check $config (as the tianhei user)" \
    sh -c "cd /var/lib/tianhei && runuser -u tianhei -- /opt/tianhei/.venv/bin/tianhei config check $config"
system units "systemctl enable tianhei.service" systemctl enable --quiet tianhei.service
# The table starts now if its hardware is there. A bus table whose RS-485 adapter is not plugged in yet cannot:
# the unit stays enabled and systemd retries it every RestartSec until the adapter appears, so that is said and is
# not a failed install. Any other failure to start is one (its log is printed).
bus_port="" waiting_for=""
[ "$profile" = bus-16 ] && bus_port=$(sed -n 's/^port *= *"\([^"]*\)".*/\1/p' "$src/hardware/profiles/bus-16.toml")
if [ "$dry" = 1 ] || [ "$root" != "/" ]; then
    system units "systemctl restart tianhei.service" true
elif [ -n "$bus_port" ] && [ ! -e "$bus_port" ] && grep -qs "^hardware *= *\"bus-16\"" "$(R $config)"; then
    say units "not started now: $bus_port is missing (the RS-485 adapter unplugged?); tianhei.service is enabled"
    say units "and starts by itself once the adapter is plugged in (systemd retries it every few seconds)"
    systemctl restart --no-block tianhei.service || true
    waiting_for="$bus_port"
else
    say units "systemctl restart tianhei.service (waits until the table says READY)"
    if ! systemctl restart tianhei.service; then
        echo "install.sh: tianhei.service did not start; its last lines:" >&2
        journalctl -u tianhei.service -n 25 --no-pager -o cat >&2 || true
        echo "install.sh: fix what they say, then: sudo systemctl restart tianhei; systemctl status tianhei" >&2
        exit 1
    fi
fi

# --- the club's broker and hall (docs/club.md), only when asked: TIANHEI_CLUB_ROOMS=1,2,3 [TIANHEI_CLUB_ARGS=...]
if [ -n "${TIANHEI_CLUB_ROOMS:-}" ]; then
    # shellcheck disable=SC2086
    system club "systemd/install-broker.sh --rooms $TIANHEI_CLUB_ROOMS ${TIANHEI_CLUB_ARGS:-}" \
        "$src/systemd/install-broker.sh" --rooms "$TIANHEI_CLUB_ROOMS" ${TIANHEI_CLUB_ARGS:-}
fi

if [ "$dry" = 1 ]; then
    echo "Dry run: nothing was changed."
elif [ "$root" != "/" ]; then
    echo "Files written under $root; nothing on this system was changed."
else
    if [ -n "$waiting_for" ]; then
        echo "Tianhei is installed and starts once $waiting_for is there: journalctl -u tianhei -f"
    else
        echo "Tianhei is running and waits for players: journalctl -u tianhei -f; systemctl status tianhei"
    fi
    if [ "$profile" = sim ]; then
        echo "The simulated table waits; to let bots play it: sudo systemctl edit tianhei (ExecStart= then"
        echo "ExecStart=/opt/tianhei/.venv/bin/tianhei serve --config $config --autoplay heuristic)"
    fi
    if [ "$profile" = bus-16 ]; then
        echo "Put the key on the judge's remote: sudo -u tianhei /opt/tianhei/.venv/bin/tianhei remote pair \\"
        echo "    --config $config --remote-config /tmp/config.json; then mpremote cp /tmp/config.json :config.json"
    fi
fi
