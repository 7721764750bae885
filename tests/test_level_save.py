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
            self.bind("k", self.kick)

        def kick(self, world: World) -> None:
            self.crate.body.apply_impulse_at_local_point((0.0, 400.0 * self.crate.body.mass))
            self.score += 100

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


def _play_pressing(path: Path, steps: int, presses: dict[int, str]) -> LevelSession:
    session = LevelSession(str(path))
    for i in range(steps):
        if i in presses:
            assert session.press(presses[i])
        session.step()
    return session


@pytest.mark.slow
@pytest.mark.parametrize("joint", [False, True])
def test_a_loaded_level_matches_a_run_that_never_saved(tmp_path: Path, joint: bool) -> None:
    """Issue 15: save at step 500, load, play 500 more: the same state hash, score, timers and
    messages as a run that never saved, with the crate, the ball, the wall and a joint
    touching and a key pressed before and after the save. The load replays the level from
    its start (:mod:`fluidworld.replay`); without that, pymunk's contacts and joints start
    cold and the hashes differ within steps (measured: the unpickled save alone)."""
    path = tmp_path / "yard.py"
    path.write_text(LEVEL.format(joint=joint))
    presses = {120: "k", 700: "k"}
    straight = _play_pressing(path, 1000, presses)
    saved = _play_pressing(path, 500, presses)
    saved.save(tmp_path / "yard.sav")
    resumed = LevelSession(str(path))
    resumed.load(tmp_path / "yard.sav")
    assert resumed.world.state_hash() == saved.world.state_hash()
    for i in range(500, 1000):
        if i in presses:
            assert resumed.press(presses[i])
            saved.press(presses[i])
        resumed.step()
        saved.step()
    assert resumed.level.score > 200 and resumed.error is None
    assert _fingerprint(resumed) == _fingerprint(straight) == _fingerprint(saved)


@pytest.mark.slow
def test_a_level_changed_from_outside_loads_as_saved(tmp_path: Path) -> None:
    """An input the session does not see (here a velocity set between steps, as a game loop
    might, after :meth:`LevelSession.note_input`): the save loads as it was saved, and saving
    moves the running game onto the saved copy, so the two still play on alike."""
    path = tmp_path / "yard.py"
    path.write_text(LEVEL.format(joint=True))
    session = _play(path, 300)
    session.level.ball.body.velocity = (0.0, 300.0)
    session.note_input()
    for _ in range(100):
        session.step()
    session.save(tmp_path / "yard.sav")
    resumed = LevelSession(str(path))
    resumed.load(tmp_path / "yard.sav")
    for _ in range(200):
        resumed.step()
        session.step()
    assert _fingerprint(resumed) == _fingerprint(session)


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


@pytest.mark.slow
def test_a_pickled_level_world_replays_the_scripts_with_it(tmp_path: Path) -> None:
    """The session's record lives in its world: a plain pickle of ``session.world`` replays the
    level's scripts and key presses too (here the kick), and continues exactly (the yard's
    scripts after step 500 touch only the score, so the world alone can go on)."""
    import pickle

    path = tmp_path / "yard.py"
    path.write_text(LEVEL.format(joint=True))
    session = _play_pressing(path, 500, {120: "k"})
    copy = pickle.loads(pickle.dumps(session.world))
    assert copy._replay is not None and copy._replay.steps == 500 and copy._replay.inputs
    for _ in range(300):
        session.step()
        copy.step()
    assert copy.state_hash() == session.world.state_hash()


PIN_LEVEL = textwrap.dedent(
    """
    import pymunk
    from fluidworld import World
    from fluidworld.levels import Level


    class Pinned(Level):
        title = "pinned"
        width, height = 320.0, 240.0

        def build(self, world: World) -> None:
            world.add_fluid_rect(0, 0, 320, 60)
            crate = world.add_box((120, 120), (30, 30), density=0.5)
            ball = world.add_ball((170, 150), 10, density=0.7)
            self.pin = pymunk.PinJoint(crate.body, ball.body)  # kept by the level itself
            world.space.add(self.pin)
            self.after(10.0, self.unpin)

        def unpin(self, world: World) -> None:
            world.space.remove(self.pin)
    """
)


@pytest.mark.slow
def test_a_level_that_keeps_a_joint_itself_resumes_with_it(tmp_path: Path) -> None:
    """The level keeps a pymunk joint of its own (not a handle) and removes it at 10 s, after
    the save at step 500: the load replays the level and its world together, so that joint is
    the loaded Space's own, and the game goes on like the one that never saved."""
    path = tmp_path / "pinned.py"
    path.write_text(PIN_LEVEL)
    straight = _play(path, 800)
    saved = _play(path, 500)
    saved.save(tmp_path / "pinned.sav")
    resumed = LevelSession(str(path))
    resumed.load(tmp_path / "pinned.sav")
    assert resumed.level.pin in resumed.world.space.constraints
    for _ in range(300):
        resumed.step()
    assert resumed.error is None, resumed.error
    assert not resumed.world.space.constraints
    assert resumed.world.state_hash() == straight.world.state_hash()
