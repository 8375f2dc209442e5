"""AI decisions run in a worker process and come back as legal actions for the seat."""

from __future__ import annotations

import engine
from app.rooms.ai import AiRunner


async def test_an_ai_decision_made_in_a_worker_process_is_legal() -> None:
    state = engine.new_game({"players": 3, "rules": "advanced", "seed": 11})
    runner = AiRunner(workers=1)
    try:
        for level in ("easy", "medium"):
            seat = engine.to_act(state)[0]
            legal = [action for action in engine.legal_actions(state) if action["seat"] == seat]
            action = await runner.decide(level, engine.view_for(state, seat), legal, seed=3)
            state = engine.apply_action(state, {**action, "seat": seat})
    finally:
        runner.close()
    assert len(engine.view_for(state, None)["log"]) > 2
