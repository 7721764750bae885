"""Bundled body textures (crate, ball, barrel, anvil, plank, boat): ``fluidworld.assets``.

The repository keeps this folder beside ``fluidworld/``; the build maps it into the package, so
``importlib.resources.files("fluidworld.assets")`` finds the images in a checkout and in a wheel.
Regenerate them with ``python -m fluidworld.assets.make_assets``.
"""
