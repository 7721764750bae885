"""Built-in demo levels: one file each, a ``Level`` subclass with a docstring.

Run one with ``python -m fluidworld.demos.NAME`` or ``fluidworld play NAME``; list them with
``fluidworld levels``; render one headless with ``fluidworld render NAME --out x.gif``.
"""
