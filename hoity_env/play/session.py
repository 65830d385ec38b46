"""One game of a person against agents, on any text input and output (``hoity-play`` runs it).

The person sees what their seat may know (RULES C-5) and nothing more: the
public board (every pawn, the lot, money, hand sizes and the cards publicly
known to be in each hand), their own hand, the reveals and the events of each
step in words.  Each decision lists the legal choices by name with a default
(what the ``expert`` bot would play in the person's seat); a bad answer is
explained and asked again.  ``q`` quits; the game so far is kept as a replay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from hoity_env.agents import Agent, ExpertAgent
from hoity_env.engine.actions import Phase
from hoity_env.engine.state import card_text
from hoity_env.environment.render.text import describe_event, render_text
from hoity_env.play.choices import menu
from hoity_env.replays.recorder import RecordingEnv

__all__ = ["Outcome", "play"]

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("?", "h", "help")


class Quit(Exception):
    """The person asked to stop (``q``, end of input or Ctrl-C)."""


@dataclass(frozen=True)
class Outcome:
    """How the session ended: ``finished`` (the game ended) or ``quit``."""

    finished: bool
    rounds: int
    winners: tuple[int, ...]


def _ask(ask: Callable[[str], str], prompt: str) -> str:
    try:
        answer = ask(prompt)
    except (EOFError, KeyboardInterrupt):
        raise Quit from None
    if answer.strip().lower() in QUIT_WORDS:
        raise Quit
    return answer


def play(
    env: RecordingEnv,
    seat: int,
    opponents: Sequence[Agent],
    *,
    seed: int,
    ask: Callable[[str], str] = input,
    say: Callable[[str], None] = print,
) -> Outcome:
    """Play one game with a person in ``seat`` and ``opponents`` in the other seats (seat order after it).

    ``ask(prompt)`` returns one line typed by the person; ``say(text)`` shows text.
    The replay is ``env.replay``; on a quit its ``end`` line says so.
    """
    n = env.num_players
    me = env.possible_agents[seat]
    others = {env.possible_agents[(seat + k) % n]: agent for k, agent in enumerate(opponents, start=1)}
    adviser = ExpertAgent(seed, rules=env.rules, num_players=n)
    for k, agent in enumerate(opponents):
        agent.reset(seed + 1 + k)
    obs, _ = env.reset(seed=seed)
    names = ", ".join(f"{a} = {env.agent_names[i]}" for i, a in enumerate(env.possible_agents))
    say(f"Hoity Toity, {n} players: {names}. You are {me}. Type ? for help, q to quit.")
    try:
        while env.agents:
            state = env.game_state
            deck = state.deck
            if state.phase is Phase.LOCATION:
                say("")
                say(render_text(state, []))
            ordered = sorted(state.hands[seat], key=lambda c: (deck.series[c], deck.year[c]))
            hand = ", ".join(card_text(c, deck) for c in ordered)
            say(f"your hand: {hand or 'empty'}; your money: {state.money[seat]}")
            mine = obs[me]
            advice = adviser.act(mine["observation"], mine["action_mask"])
            options = menu(mine["action_mask"], env.codec, advice)
            prompt = f"{options.describe()}\nchoice [Enter = {options.default_text(env.codec)}]> "
            while True:
                answer = _ask(ask, prompt)
                if answer.strip().lower() in HELP_WORDS:
                    say(
                        "answer with a number or a name from the list (or a bid amount); Enter takes "
                        "the default (the expert bot's choice); q quits and keeps the game as a replay"
                    )
                    continue
                action = options.read(answer)
                if action is not None:
                    break
                say(f"{answer.strip()!r} is not a legal choice here (? for help)")
            actions = {me: action}
            for name, agent in others.items():
                actions[name] = agent.act(obs[name]["observation"], obs[name]["action_mask"])
            obs = env.step(actions)[0]
            for event in env.last_events:
                say(describe_event(event, deck))
    except Quit:
        env.replay.end = env.end_record("quit")
        say("you left the game")
        return Outcome(False, env.game_state.round, ())
    state = env.game_state
    say(render_text(state, []))
    if state.winners:
        verdict = "you win!" if seat in state.winners else "you lose"
        say(f"game over after {state.round} rounds: {verdict}")
    else:
        say(f"the game was truncated after {state.round} rounds: nobody wins")
    return Outcome(True, state.round, tuple(state.winners))
