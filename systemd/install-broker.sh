#!/usr/bin/env bash
# The club's MQTT broker (Mosquitto) and, with --hall, the hall service, on the club's Pi (docs/club.md).
# Run as root after systemd/install.sh:  sudo systemd/install-broker.sh --club redclub --rooms 1,2,3 --bind 192.168.8.2 --hall
#   --club NAME      the club's name in the topics (default: club)
#   --rooms LIST     the rooms' ids, comma-separated (each table gets a user and a password for its room)
#   --bind ADDR      the Pi's address on the club network (repeatable); without it the broker listens on loopback only
#   --hall           also install and start the hall service (tianhei-hall.service)
#   --dry-run        print every step (the broker's package too) and make no change
#   --offline DIR    no internet: Mosquitto from DIR/broker-debs, as systemd/fetch-offline.sh DIR fetched it
# Mosquitto 2.0.15 or later, from Debian's bookworm-backports on Raspberry Pi OS bookworm (2.0.11, bookworm's own,
# hangs after a few bridge handshakes cut short; systemd/mosquitto-package.sh, docs/league.md "Which Mosquitto").
# Idempotent: running it again keeps every password (tables already set up keep working) and adds new rooms.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
club=club rooms="" binds=() hall=0 dry=0 offline=""
while [ $# -gt 0 ]; do
    case "$1" in
        --club) club=$2; shift 2 ;;
        --rooms) rooms=$2; shift 2 ;;
        --bind) binds+=(--bind "$2"); shift 2 ;;
        --hall) hall=1; shift ;;
        --dry-run) dry=1; shift ;;
        --offline) offline=${2:-}; shift 2 ;;
        *) echo "install-broker.sh: unknown option $1 (see the comment at the top)" >&2; exit 2 ;;
    esac
done
[ -n "$rooms" ] || { echo "install-broker.sh: give the rooms, e.g. --rooms 1,2,3" >&2; exit 2; }
tianhei=/opt/tianhei/.venv/bin/tianhei
[ "$dry" = 1 ] || [ -x "$tianhei" ] || { echo "install-broker.sh: run systemd/install.sh first (no $tianhei)" >&2; exit 2; }
if [ -n "$offline" ] && [ ! -d "$offline/broker-debs" ]; then
    echo "install-broker.sh: --offline $offline has no broker-debs/ folder (systemd/fetch-offline.sh $offline makes it)" >&2
    exit 2
fi
[ "$dry" = 1 ] && echo "Dry run: every step install-broker.sh would take for club $club; nothing is changed."
# Each step printed; run unless this is a dry run.
step() { printf '%-11s %s\n' "[$1]" "${*:2}"; [ "$dry" = 1 ] || "${@:2}"; }

package=(sh "$src/systemd/mosquitto-package.sh")
[ "$dry" = 1 ] && package+=(--dry-run)
[ -n "$offline" ] && package+=(--offline "$offline/broker-debs")
# A club without a league can live with an older Mosquitto (broker-files warns of it); with none, nothing works.
"${package[@]}" || { [ -x /usr/sbin/mosquitto ] || exit 1
    echo "install-broker.sh: going on with the Mosquitto installed (tianhei hall broker-files warns of it)" >&2; }

# A broker set up before client ids were bound to logins (its tianhei.conf without use_username_as_clientid) kept
# the sessions of the old ids (tianhei-<club>-hall, ...), which nobody uses any more and Mosquitto keeps filling up
# to max_queued_messages. Its store is set aside once, with the broker stopped (it writes the store as it stops):
# safe, since the tables send again what the hall has not acknowledged, the hall what the league has not, and the
# hall keeps the rooms' state itself; what is lost is only the broker's copy of what was in flight.
conf=${TIANHEI_MOSQUITTO_CONF:-/etc/mosquitto/conf.d/tianhei.conf}
store=${TIANHEI_MOSQUITTO_STORE:-/var/lib/mosquitto/mosquitto.db}
old_ids=0
if [ -f "$conf" ] && [ -f "$store" ] && ! grep -q '^use_username_as_clientid true' "$conf"; then old_ids=1; fi

# mosquitto.conf (listeners, no anonymous clients), the ACL and a password per user, in /etc/tianhei/mqtt.
# Debian's own /etc/mosquitto/mosquitto.conf keeps persistence on in /var/lib/mosquitto and includes conf.d.
step files "$tianhei" hall broker-files --club "$club" --rooms "$rooms" --out /etc/tianhei/mqtt "${binds[@]}"
# Run as root, broker-files gives the password file and the ACL to the user mosquitto drops to (0640;
# controller/hall/broker.py readable_by_the_broker); the folder stays open, the way to the hall's secrets/.
if [ "$dry" = 1 ] || id tianhei >/dev/null 2>&1; then step files chown -R tianhei /etc/tianhei/mqtt/secrets; fi
step files install -m 0644 /etc/tianhei/mqtt/mosquitto.conf "$conf"
step service systemctl enable mosquitto
if [ "$old_ids" = 1 ]; then
    step service systemctl stop mosquitto
    step sessions mv "$store" "$store.before-client-ids"
fi
step service systemctl restart mosquitto

if [ "$hall" = 1 ]; then
    step hall install -m 0644 "$src/systemd/tianhei-hall.service" /etc/systemd/system/tianhei-hall.service
    step hall systemctl daemon-reload
    step hall systemctl enable --now tianhei-hall.service
fi
[ "$dry" = 1 ] && exit 0
cat <<MSG
The broker is running (mosquitto, users: hall and room-<id>; passwords in /etc/tianhei/mqtt/secrets/).
On each table, add to /etc/tianhei/tianhei.toml (and copy that room's secret file and /etc/tianhei/mqtt/certs/ca.crt
there: the club network's listener is TLS, port 8883, and the table checks the broker's certificate with it):
  [mqtt]
  host = "<this Pi's club-network address, or 127.0.0.1 here>"
  club = "$club"
  room = "<the table's room id>"
  password_file = "/etc/tianhei/mqtt/secrets/room-<id>.secret"
  cafile = "/etc/tianhei/mqtt/ca.crt"
For the hall: [mqtt] with password_file = "/etc/tianhei/mqtt/secrets/hall.secret" and a [hall] section (docs/club.md);
give [hall] an organiser_code to use the waiting list's buttons from a phone (without one they work only on this Pi).
MSG
