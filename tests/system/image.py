"""The system test's image: Debian bookworm for arm64 (what Raspberry Pi OS is), built once and cached.

Built with mmdebstrap from Debian's own packages, through qemu-user-static in binfmt_misc (the host is not
aarch64). The result lives outside the checkout, in ``~/.cache/tianhei/system-test/<key>/``, where ``<key>`` is
a hash of everything that goes into it: the suite, the package lists, the packages install.sh asks for, the
recipe's number (:data:`RECIPE`) and the guest agent. A change to any of them builds a new image; an unchanged one is reused, and
every run boots a fresh qcow2 overlay on it, so nothing a run does is seen by the next.

What the cache directory holds:

* ``rootfs.qcow2``   the root file system (ext4), booted read-write through an overlay
* ``vmlinuz``, ``initrd.img``  Debian's ``linux-image-arm64`` kernel and initramfs, taken out of the image for
  QEMU's ``-kernel``/``-initrd``
* ``debs/``          the .debs install.sh asks for, downloaded inside the arm64 chroot with
  ``apt-get install --download-only`` (so: exactly what this image lacks), for ``install.sh --offline``
* ``manifest.json``  what went in (written last: a directory without it is an unfinished build)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SUITE = "bookworm"
MIRROR = "http://deb.debian.org/debian"
#: Part of the cache key: bump it with any change to how :func:`build` makes the image (its hooks, options).
RECIPE = 6
#: The operating system a Pi's table needs before install.sh: a kernel, systemd as PID 1, udev, Python.
BASE_PACKAGES = ("linux-image-arm64", "systemd", "systemd-sysv", "udev", "python3", "kmod", "passwd", "procps",
                 "e2fsprogs", "util-linux")
#: qemu-user-static's line for binfmt_misc (systemd-binfmt's format is the register file's own).
BINFMT_CONF = Path("/usr/lib/binfmt.d/qemu-aarch64.conf")
BINFMT_DIR = Path("/proc/sys/fs/binfmt_misc")
IMAGE_SIZE = "6G"


class ImageError(Exception):
    """A step of the build that cannot be done here; the message says what to do."""


def say(line: str) -> None:
    print(f"[image] {line}", flush=True)


def cache_root() -> Path:
    base = os.environ.get("TIANHEI_CACHE") or os.path.join(os.environ.get("XDG_CACHE_HOME")
                                                          or os.path.expanduser("~/.cache"), "tianhei")
    return Path(base) / "system-test"


def install_packages(profile: str = "bus-16") -> list[str]:
    """The Debian packages install.sh installs for ``profile``, read from its own dry run (one source of truth)."""
    out = subprocess.run(["bash", str(ROOT / "systemd/install.sh"), "--dry-run", "--profile", profile],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("[packages]") and "apt-get install -y" in line:
            return [w for w in line.split("apt-get install -y", 1)[1].split() if not w.startswith("-")]
    raise ImageError("install.sh --dry-run names no packages ('[packages] apt-get install -y ...' not found)")


def key(packages: list[str]) -> str:
    """The cache key: a hash of everything the image is made of."""
    h = hashlib.sha256()
    h.update(json.dumps({"suite": SUITE, "base": BASE_PACKAGES, "install": packages, "recipe": RECIPE,
                         "size": IMAGE_SIZE}).encode())
    for f in (HERE / "guest/agent.py", HERE / "guest/tianhei-test-agent.service", HERE / "guest/initramfs-hook"):
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def ensure_binfmt() -> None:
    """aarch64 programs run on this host through qemu-user-static: register its handler in binfmt_misc if the
    kernel does not have it yet (nothing here does it by itself; debootstrap then fails with "Unable to execute
    target architecture")."""
    entry = BINFMT_DIR / "qemu-aarch64"
    if not (BINFMT_DIR / "register").exists():
        say(f"mounting binfmt_misc on {BINFMT_DIR}")
        done = subprocess.run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(BINFMT_DIR)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise ImageError(f"cannot mount binfmt_misc ({done.stderr.strip()}): run as root, or on a host that "
                             "allows it (a container needs --privileged); or register qemu-aarch64 on the host "
                             "itself (apt-get install qemu-user-static binfmt-support)")
    if entry.exists():
        if entry.read_text().splitlines()[0].strip() == "enabled":
            return
        say("qemu-aarch64 is registered but disabled: enabling it")
        entry.write_text("1")
        return
    if not BINFMT_CONF.is_file():
        raise ImageError(f"{BINFMT_CONF} is missing: apt-get install qemu-user-static")
    line = next(ln for ln in BINFMT_CONF.read_text().splitlines() if ln.startswith(":"))
    say(f"registering the aarch64 handler from {BINFMT_CONF}")
    try:
        (BINFMT_DIR / "register").write_text(line)
    except OSError as exc:
        raise ImageError(f"the kernel refused the qemu-aarch64 handler ({exc}). Register it where that is "
                         "allowed: on the host (not in an unprivileged container) as root, `update-binfmts "
                         "--enable qemu-aarch64` or `systemctl restart systemd-binfmt`; a container needs "
                         "--privileged. The 'F' flag then makes it work inside chroots too.") from exc


def tools_missing() -> list[str]:
    need = {"mmdebstrap": "mmdebstrap", "qemu-aarch64-static": "qemu-user-static", "qemu-img": "qemu-utils",
            "mkfs.ext4": "e2fsprogs", "qemu-system-aarch64": "qemu-system-arm", "arch-test": "arch-test"}
    return sorted({pkg for tool, pkg in need.items() if shutil.which(tool) is None})


def ensure_tools() -> None:
    missing = tools_missing()
    if not missing:
        return
    say(f"installing from Debian: {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *missing]):
        if subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL).returncode != 0:
            raise ImageError(f"could not install {' '.join(missing)} ({' '.join(cmd[:2])} failed): install them "
                             "by hand, as root")


def cached(k: str) -> Path | None:
    d = cache_root() / k
    return d if (d / "manifest.json").is_file() else None


def build(packages: list[str], log: Path) -> Path:
    """Build the image for ``packages`` (or take it from the cache); returns its directory."""
    k = key(packages)
    found = cached(k)
    if found is not None:
        say(f"cached image {found} (key {k})")
        return found
    if os.geteuid() != 0:
        raise ImageError("building the image needs root (mmdebstrap --mode=root, binfmt_misc): run as root once; "
                         "later runs reuse the cached image")
    ensure_tools()
    ensure_binfmt()
    out = cache_root() / k
    work = cache_root() / f"{k}.building"
    remove_build(work)
    work.mkdir(parents=True)
    rootfs = work / "rootfs"
    debs = work / "debs"
    debs.mkdir()
    started = time.monotonic()
    say(f"building Debian {SUITE} arm64 (key {k}); a cold build takes a while (every package's scripts run "
        f"under qemu-user); log: {log}")
    guest = HERE / "guest"
    # Before the kernel's package: its initramfs holds only what this VM boots from (virtio, ext4). Debian's
    # MODULES=most copies a thousand modules one qemu-user process at a time (an hour and more here); a Pi's
    # Raspberry Pi OS boots with no initramfs at all.
    initramfs = [
        'mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/etc/initramfs-tools/hooks"',
        'echo MODULES=list > "$1/etc/initramfs-tools/conf.d/tianhei-vm.conf"',
        f'install -m 0755 {guest}/initramfs-hook "$1/etc/initramfs-tools/hooks/tianhei-vm"',
    ]
    hooks = [
        # what install.sh will ask apt for, as .debs (exactly what this image lacks), for install.sh --offline
        # (the cache first emptied of the base system's own .debs, which mmdebstrap leaves there: installing those
        # again would rebuild the kernel's initramfs and take most of an hour under TCG)
        'rm -f "$1"/var/cache/apt/archives/*.deb',
        f'chroot "$1" apt-get install --download-only -y -q {" ".join(packages)}',
        f'cp "$1"/var/cache/apt/archives/*.deb {debs}/',
        'echo tianhei-vm > "$1/etc/hostname"',
        'printf "/dev/vda / ext4 defaults,errors=remount-ro 0 1\\n" > "$1/etc/fstab"',
        # a real ALSA device for pygame: Debian's arm64 kernel has no snd-dummy, its loopback card is one
        'echo snd-aloop > "$1/etc/modules-load.d/snd-aloop.conf"',
        f'install -D -m 0755 {guest}/agent.py "$1/usr/local/lib/tianhei-test/agent.py"',
        f'install -D -m 0644 {guest}/tianhei-test-agent.service "$1/etc/systemd/system/tianhei-test-agent.service"',
        'chroot "$1" systemctl enable tianhei-test-agent.service',
        # nothing waits for a network that is not there, nor for a login on a console nobody types on
        'chroot "$1" systemctl mask systemd-networkd-wait-online.service getty@tty1.service '
        'serial-getty@ttyAMA0.service serial-getty@hvc0.service getty-static.service apt-daily.timer '
        'apt-daily-upgrade.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer man-db.timer',
        'chroot "$1" passwd -d root',
        f'cp -L "$1"/vmlinuz {work}/vmlinuz',
        f'cp -L "$1"/initrd.img {work}/initrd.img',
    ]
    cmd = ["mmdebstrap", "--mode=root", "--arch=arm64", "--variant=minbase",
           f"--include={','.join(BASE_PACKAGES)}", "--aptopt=APT::Install-Recommends \"false\""]
    for hook in initramfs:
        cmd.append(f"--essential-hook={hook}")
    for hook in hooks:
        cmd.append(f"--customize-hook={hook}")
    cmd += [SUITE, str(rootfs), MIRROR]
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        done = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise ImageError(f"mmdebstrap failed (exit {done.returncode}); the last lines of {log} say why")
    say(f"root file system made in {time.monotonic() - started:.0f} s; making the ext4 disk")
    raw = work / "rootfs.raw"
    run_logged(["mkfs.ext4", "-q", "-L", "tianhei-root", "-d", str(rootfs), str(raw), IMAGE_SIZE], log)
    run_logged(["qemu-img", "convert", "-O", "qcow2", str(raw), str(work / "rootfs.qcow2")], log)
    raw.unlink()
    shutil.rmtree(rootfs)
    manifest = {"key": k, "suite": SUITE, "arch": "arm64", "base": list(BASE_PACKAGES), "install": packages,
                "debs": sorted(p.name for p in debs.glob("*.deb")), "built_s": round(time.monotonic() - started),
                "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (work / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    say(f"image built in {manifest['built_s']} s: {out}")
    return out


def remove_build(work: Path) -> None:
    """Remove an unfinished build, never through a file system still mounted inside it (a killed mmdebstrap
    can leave the chroot's /proc, /sys or /dev mounted: removing through those would remove the host's)."""
    if not work.exists():
        return
    inside = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
              if line.split()[1].startswith(str(work) + "/")]
    for mount in sorted(inside, key=len, reverse=True):
        subprocess.run(["umount", "-l", mount], check=False)
    still = [line.split()[1] for line in Path("/proc/mounts").read_text().splitlines()
             if line.split()[1].startswith(str(work) + "/")]
    if still:
        raise ImageError(f"an unfinished build in {work} still has mounts ({', '.join(still)}): unmount them, "
                         "then remove the folder")
    shutil.rmtree(work)


def run_logged(cmd: list[str], log: Path) -> None:
    with open(log, "a") as f:
        f.write("$ " + " ".join(cmd) + "\n")
        f.flush()
        done = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise ImageError(f"{cmd[0]} failed (exit {done.returncode}); see {log}")


def overlay(image: Path, where: Path) -> Path:
    """A fresh qcow2 overlay on the cached image: the run writes there, the image stays as built."""
    disk = where / "root-overlay.qcow2"
    disk.unlink(missing_ok=True)
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2", "-b", str(image / "rootfs.qcow2"),
                    str(disk)], check=True)
    return disk


def data_disk(files: dict[str, Path], where: Path, name: str, size: str = "2G") -> Path:
    """An ext4 disk holding ``files`` (name in the disk -> host path: a folder is copied whole), for the VM's
    second drive: the checkout and the offline bundle reach the VM this way (it has no network)."""
    stage = Path(tempfile.mkdtemp(prefix="tianhei-disk-", dir=where))
    try:
        for inside, host in files.items():
            dest = stage / inside
            dest.parent.mkdir(parents=True, exist_ok=True)
            if host.is_dir():
                shutil.copytree(host, dest, symlinks=True)
            else:
                shutil.copy2(host, dest)
        disk = where / f"{name}.raw"
        disk.unlink(missing_ok=True)
        subprocess.run(["mkfs.ext4", "-q", "-L", name, "-d", str(stage), str(disk), size], check=True,
                       stdout=subprocess.DEVNULL)
        return disk
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _main() -> int:
    import sys

    log = Path(tempfile.gettempdir()) / "tianhei-image-build.log"
    try:
        d = build(install_packages(), log)
    except ImageError as exc:
        print(f"image: {exc}", file=sys.stderr)
        return 1
    print(d)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
