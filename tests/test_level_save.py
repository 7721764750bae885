"""Saving a running level: world and script resume exactly (timers, triggers, score)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pymunk
import pytest

from fluidworld import SaveError
from fluidworld.levels import LevelSession

LEVEL = textwrap.dedent(
    """
    import pymunk
    from fluidworld import World
    from fluidworld.levels import Level

    JOINT = {joint}


    class Yard(Level):
        title = "yard"
        width, height = 320.0, 240.0

        def build(self, world: World) -> None:
            world.add_fluid_rect(0, 0, 320, 60)
            self.crate = world.add_box((80, 120), (30, 30), density=0.5)
            self.ball = world.add_ball((200, 150), 10, density=0.7)
            if JOINT:
                world.space.add(pymunk.PinJoint(self.crate.body, self.ball.body))
            world.add_emitter((30, 220), (1, -1), 90, rate=60)
            self.drain((290, 0, 320, 30))
            self.score = 0
            self.after(12.0, lambda w: self.say("late timer"))      # still running at 500
            self.every(1.0, self.tick)
            self.trigger((0, 0, 320, 240), lambda w: self.bump(10), watch="bodies")

        def tick(self, world: World) -> None:
            self.score += 1

        def bump(self, k: int) -> None:
            self.score += k
    """
)


def _play(path: Path, steps: int) -> LevelSession:
    session = LevelSession(str(path))
    assert session.error is None, session.error
    for _ in range(steps):
        session.step()
    return session


def _fingerprint(session: LevelSession) -> tuple[str, int, int, list[str]]:
    level = session.level
    assert level is not None
    return (session.world.state_hash(), level.score, len(level.timers),
            [m.text for m in level.messages])


@pytest.mark.slow
@pytest.mark.parametrize("joint", [False, True])
def test_a_saved_level_resumes_exactly_as_the_game_played_on(tmp_path: Path,
                                                             joint: bool) -> None:
    """Save at step 500 and play on; load the save elsewhere and play 500 steps too: the same
    world, score, timers and messages (bodies touching, with and without a joint)."""
    path = tmp_path / "yard.py"
    path.write_text(LEVEL.format(joint=joint))
    played_on = _play(path, 500)
    save = tmp_path / "yard.sav"
    played_on.save(save)
    resumed = LevelSession(str(path))
    resumed.load(save)
    assert resumed.world.steps == 500 and resumed.level.score == played_on.level.score
    for _ in range(500):
        resumed.step()
        played_on.step()
    assert resumed.level.score > 10  # the ticks and the trigger ran on
    assert resumed.error is None and played_on.error is None
    assert _fingerprint(resumed) == _fingerprint(played_on)


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "pymunk's public API neither saves nor restores the accumulated (warm-start) impulses of "
    "contacts and joints: against a run that never saved, a loaded world drifts within steps "
    "where bodies touch (here the crate, the ball and a wall at step 500)"))
def test_a_loaded_level_matches_a_run_that_never_saved(tmp_path: Path) -> None:
    path = tmp_path / "yard.py"
    path.write_text(LEVEL.format(joint=False))
    straight = _play(path, 1000)
    saved = _play(path, 500)
    saved.save(tmp_path / "yard.sav")
    resumed = LevelSession(str(path))
    resumed.load(tmp_path / "yard.sav")
    for _ in range(500):
        resumed.step()
    assert _fingerprint(resumed) == _fingerprint(straight)


def test_a_bad_level_save_leaves_the_running_level_alone(tmp_path: Path) -> None:
    path = tmp_path / "yard.py"
    path.write_text(LEVEL.format(joint=False))
    session = _play(path, 20)
    before = _fingerprint(session)
    bad = tmp_path / "bad.sav"
    bad.write_bytes(b"junk")
    with pytest.raises(SaveError, match="not a fluidworld save"):
        session.load(bad)
    world_only = tmp_path / "world.sav"
    session.world.save(world_only)
    with pytest.raises(SaveError, match="not of a level"):
        session.load(world_only)
    assert _fingerprint(session) == before
    session.step()


def test_what_does_not_pickle_is_named(tmp_path: Path) -> None:
    path = tmp_path / "yard.py"
    path.write_text(LEVEL.format(joint=False))
    session = _play(path, 2)
    session.level.handle = open(path)  # noqa: SIM115  (a file cannot be saved)
    try:
        with pytest.raises(SaveError, match="cannot be saved"):
            session.save(tmp_path / "x.sav")
    finally:
        session.level.handle.close()
    assert pymunk  # the level module imports it too


def test_another_levels_save_switches_the_session_to_that_level(tmp_path: Path) -> None:
    yard = tmp_path / "yard.py"
    yard.write_text(LEVEL.format(joint=False))
    saved = _play(yard, 10)
    saved.save(tmp_path / "yard.sav")
    other = LevelSession("droplet")
    other.load(tmp_path / "yard.sav")
    assert (other.name, other.title, other.level_file) == ("yard", "yard", yard.resolve())
    assert other.reload() and other.title == "yard"  # R rebuilds the loaded level


def test_a_level_save_given_to_world_load_says_what_it_is(tmp_path: Path) -> None:
    from fluidworld import World

    path = tmp_path / "yard.py"
    path.write_text(LEVEL.format(joint=False))
    _play(path, 5).save(tmp_path / "yard.sav")
    with pytest.raises(SaveError, match="save of a level.*LevelSession.load"):
        World.load(tmp_path / "yard.sav")
