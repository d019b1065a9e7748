"""The RGB LED on three PWM pins, 0..255 per channel (gamma is the host's business)."""


class RGBLed:
    def __init__(self, pwm_r, pwm_g, pwm_b, common_anode=False):
        self._pwms = (pwm_r, pwm_g, pwm_b)
        self.common_anode = common_anode
        self.rgb = (0, 0, 0)
        for p in self._pwms:
            p.freq(1000)
        self.set((0, 0, 0))

    def set(self, rgb):
        self.rgb = (rgb[0], rgb[1], rgb[2])
        for i in range(3):
            duty = self.rgb[i] * 257
            self._pwms[i].duty_u16(65535 - duty if self.common_anode else duty)
