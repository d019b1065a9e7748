"""The RGB LED on three PWM pins, 0..255 per channel (gamma is the host's business)."""

from mpcompat import micropython


class RGBLed:
    def __init__(self, pwm_r, pwm_g, pwm_b, common_anode=False):
        self._pwms = (pwm_r, pwm_g, pwm_b)
        self.common_anode = common_anode
        self.rgb = (0, 0, 0)
        for p in self._pwms:
            p.freq(1000)
        self.set((0, 0, 0))

    @micropython.native
    def set(self, rgb):
        """Native, the channels written in line: it runs at every press (the local echo) and its end."""
        r, g, b = rgb[0], rgb[1], rgb[2]
        self.rgb = rgb
        p = self._pwms
        if self.common_anode:
            p[0].duty_u16(65535 - r * 257)
            p[1].duty_u16(65535 - g * 257)
            p[2].duty_u16(65535 - b * 257)
        else:
            p[0].duty_u16(r * 257)
            p[1].duty_u16(g * 257)
            p[2].duty_u16(b * 257)
