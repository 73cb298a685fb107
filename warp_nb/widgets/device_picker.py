"""DevicePicker: a dropdown of this machine's devices that sets warp_nb's default device and
shows the chosen device's properties."""

from __future__ import annotations

import ipywidgets as W

import warp_nb as wp

from ._shared import StaticFallback, esc


class DevicePicker(StaticFallback, W.VBox):
    """Pick the default device for arrays and launches.

        picker = DevicePicker()
        picker            # shows the dropdown and the device's properties
        picker.value      # "cpu"; setting it (or the dropdown) calls wp.set_device
    """

    def __init__(self, **kwargs):
        devices = wp.get_devices()
        self.dropdown = W.Dropdown(options=[d.alias for d in devices], value=wp.get_device().alias,
                                   description="device")
        self.info = W.HTML()
        super().__init__([self.dropdown, self.info], **kwargs)
        self.add_class("wpnb-device-picker")
        self.dropdown.observe(self._changed, "value")
        self._show()

    @property
    def value(self) -> str:
        return self.dropdown.value

    @value.setter
    def value(self, alias: str) -> None:
        if alias not in self.dropdown.options:
            raise wp.DeviceError(f"device '{alias}' is not available here; choose one of "
                                 f"{', '.join(self.dropdown.options)}")
        self.dropdown.value = alias

    @property
    def properties(self) -> dict:
        return wp.get_device(self.dropdown.value).properties()

    def _changed(self, change) -> None:
        wp.set_device(change["new"])
        self._show()

    def _show(self) -> None:
        self.info.value = self.static_html()

    def static_html(self) -> str:
        rows = "".join(f"<tr><td style='padding:1px 8px'>{esc(k)}</td><td style='font-family:monospace'>{esc(v)}"
                       f"</td></tr>" for k, v in self.properties.items())
        return f"<div class='wpnb-device'><b>default device: {esc(self.value)}</b><table>{rows}</table></div>"
