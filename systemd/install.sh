#!/usr/bin/env bash
# Install Tianhei as a service on Raspberry Pi OS (run as root from a checkout: sudo systemd/install.sh).
# Idempotent: running it again upgrades the code and keeps the config, decks and journal.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

apt-get update
apt-get install -y python3-venv python3-dev swig liblgpio-dev libsdl2-mixer-2.0-0 i2c-tools
raspi-config nonint do_i2c 0 || true
raspi-config nonint do_spi 0 || true
grep -q '^dtparam=i2c_arm_baudrate=' /boot/firmware/config.txt 2>/dev/null || \
    echo 'dtparam=i2c_arm_baudrate=400000' >> /boot/firmware/config.txt || true

id tianhei >/dev/null 2>&1 || useradd --system --home /var/lib/tianhei --create-home tianhei
for g in gpio i2c spi dialout audio; do getent group "$g" >/dev/null && usermod -aG "$g" tianhei; done

mkdir -p /opt/tianhei /etc/tianhei /var/lib/tianhei/decks
rsync -a --delete --exclude .venv --exclude .git "$src/" /opt/tianhei/
python3 -m venv /opt/tianhei/.venv
/opt/tianhei/.venv/bin/pip install --upgrade pip
# Editable, so the code finds hardware/, sounds/ and decks beside it.
/opt/tianhei/.venv/bin/pip install -e "/opt/tianhei[pi]"

if [ ! -f /etc/tianhei/tianhei.toml ]; then
    cp "$src/tianhei.example.toml" /etc/tianhei/tianhei.toml
    echo "Edit /etc/tianhei/tianhei.toml (hardware profile, variant, players), then: tianhei config check"
fi
chown -R tianhei:tianhei /var/lib/tianhei

install -m 0644 "$src/systemd/99-tianhei.rules" /etc/udev/rules.d/99-tianhei.rules
udevadm control --reload-rules && udevadm trigger || true
install -m 0644 "$src/systemd/tianhei.service" /etc/systemd/system/tianhei.service
systemctl daemon-reload
systemctl enable --now tianhei.service
# The club's broker and hall (docs/club.md), only when asked: TIANHEI_CLUB_ROOMS=1,2,3 [TIANHEI_CLUB_ARGS="--club x --bind ADDR --hall"]
if [ -n "${TIANHEI_CLUB_ROOMS:-}" ]; then
    # shellcheck disable=SC2086
    "$src/systemd/install-broker.sh" --rooms "$TIANHEI_CLUB_ROOMS" ${TIANHEI_CLUB_ARGS:-}
fi
echo "Tianhei is running: journalctl -u tianhei -f"
