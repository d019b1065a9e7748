#!/usr/bin/python3
"""The system test's agent inside the VM: runs the commands the host writes on a virtio-serial port.

The VM has no network; the host speaks to it through one port (``/dev/virtio-ports/tianhei.agent``), one JSON
object a line each way. A request ``{"id": 1, "sh": "systemctl is-active tianhei", "timeout": 60}`` runs the
command with bash as root and answers ``{"id": 1, "rc": 0, "out": "active\\n"}``; ``{"id": 2, "watch": PATH}``
answers ``{"id": 2, "changed": PATH}`` as soon as the file's size or time changes (the power cut "during a
journal write"); ``{"id": 3, "ping": true}`` answers with the uptime. Requests run side by side, each on its own
thread. Only Python's standard library: this runs on the bare image, before anything is installed.
"""

import json
import os
import subprocess
import sys
import threading
import time

PORT = sys.argv[1] if len(sys.argv) > 1 else "/dev/virtio-ports/tianhei.agent"
lock = threading.Lock()


def uptime():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def answer(fd, reply):
    data = (json.dumps(reply) + "\n").encode()
    with lock:
        while data:
            n = os.write(fd, data)
            data = data[n:]


def run(fd, req):
    rid = req.get("id")
    try:
        if "ping" in req:
            answer(fd, {"id": rid, "uptime": uptime()})
        elif "watch" in req:
            path = req["watch"]
            deadline = time.monotonic() + float(req.get("timeout", 600))

            def look():
                try:
                    st = os.stat(path)
                    return (st.st_size, st.st_mtime_ns)
                except OSError:
                    return None

            first = look()
            while time.monotonic() < deadline:
                now = look()
                if now != first:
                    answer(fd, {"id": rid, "changed": path, "uptime": uptime()})
                    return
                time.sleep(0.001)  # the VM agent polls a real device on real time
            answer(fd, {"id": rid, "error": f"{path} did not change in {req.get('timeout', 600)} s"})
        else:
            done = subprocess.run(["bash", "-c", req["sh"]], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=float(req.get("timeout", 600)))
            answer(fd, {"id": rid, "rc": done.returncode, "out": done.stdout.decode("utf-8", "replace")})
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode("utf-8", "replace")
        answer(fd, {"id": rid, "rc": 124, "out": out + f"\n(timed out after {req.get('timeout')} s)"})
    except Exception as exc:  # the host gets one line, the agent goes on
        answer(fd, {"id": rid, "error": f"{type(exc).__name__}: {exc}"})


def main():
    while not os.path.exists(PORT):
        time.sleep(0.2)  # the VM agent polls a real device on real time
    fd = os.open(PORT, os.O_RDWR)
    answer(fd, {"hello": True, "uptime": uptime()})
    buf = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:  # the host closed its end: wait for it to come back
            time.sleep(0.2)  # the VM agent polls a real device on real time
            continue
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                req = json.loads(line)
            except ValueError:
                answer(fd, {"error": "not a JSON line"})
                continue
            threading.Thread(target=run, args=(fd, req), daemon=True).start()


if __name__ == "__main__":
    main()
