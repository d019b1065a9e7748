"""The table restarts (the watchdog, a crash, an upgrade) while the seat nodes keep their power: each panel still
shows what the old table drew — maybe a role — and the new table knows nothing of it. Its first picture must be
the whole picture, dark pixels too; drawn as a change from a blank panel, the old screen stayed lit between the
new one's pixels (found under QEMU: the killers' night choice after a watchdog restart was unreadable, and a
role could have shown through). The real firmware on the simulated bus, the panel's RAM read back."""

from __future__ import annotations

from PIL import Image, ImageDraw

from controller.bus.display import ssd1306_bytes
from controller.bus.master import BusMaster
from controller.bus.sim import start_sim_table
from controller.bus.table import BusTable


def role_card(text: str) -> Image.Image:
    im = Image.new("1", (128, 64))
    draw = ImageDraw.Draw(im)
    draw.rectangle((0, 0, 127, 63), fill=1)  # a bright screen: every pixel the next one leaves dark must go
    draw.text((20, 24), text, fill=0)
    return im


def night_choice() -> Image.Image:
    im = Image.new("1", (128, 64))
    ImageDraw.Draw(im).text((4, 4), "Kill: seat 4 >", fill=1)
    return im


def test_a_restarted_table_repaints_every_seat_whole_and_nothing_of_the_old_screen_shows_through() -> None:
    with start_sim_table(2) as sim:
        sim.table.start(lambda event: None)
        sim.table.run_for(0.2)
        sim.table.seats[1].screen.display(role_card("KILLER"))
        sim.table.run_for(0.3)
        assert sim.bus.nodes[1].screen() == ssd1306_bytes(role_card("KILLER"))

        # the table's process is gone; a new one starts on the same bus, the nodes powered throughout
        old = sim.master
        master = BusMaster(sim.bus, [n.spec for n in old.nodes.values()], reply_timeout=old.reply_timeout,
                           baud=old.baud)
        table = BusTable(master, threaded=False)
        table.start(lambda event: None)
        table.run_for(0.2)
        table.seats[1].screen.display(night_choice())
        table.run_for(0.3)
        assert sim.bus.nodes[1].screen() == ssd1306_bytes(night_choice())
        assert sim.bus.nodes[2].screen() == bytes(1024)  # never drawn by the new table: dark, as it believes
