"""The system test's image is rebuilt exactly when what goes into it changes (tests/system/image.py)."""

from __future__ import annotations

from tests.system import image


def test_the_image_is_built_with_the_packages_install_sh_asks_for() -> None:
    packages = image.install_packages("bus-16")
    assert "python3-venv" in packages and "alsa-utils" in packages


def test_another_package_list_is_another_image() -> None:
    packages = image.install_packages("bus-16")
    assert image.key(packages) == image.key(list(packages))
    assert image.key([*packages, "i2c-tools"]) != image.key(packages)


def test_the_cache_lives_outside_the_checkout(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("TIANHEI_CACHE", "/var/cache/tianhei-ci")
    assert str(image.cache_root()) == "/var/cache/tianhei-ci/system-test"
    monkeypatch.delenv("TIANHEI_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", "/home/club/.cache")
    assert str(image.cache_root()) == "/home/club/.cache/tianhei/system-test"
