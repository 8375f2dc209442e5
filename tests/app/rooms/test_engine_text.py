"""The app stores engine states with orjson, without their log: the text is still
``engine.dumps``'s JSON, of the same state with an empty log."""

from __future__ import annotations

import json
import random

import engine
from app.rooms.model import dump_engine_state, load_engine_state


def test_orjson_text_is_the_engines_json_without_the_log_and_reads_back() -> None:
    config = {"players": 4, "rules": "advanced", "draft": False, "seed": 3}
    state = engine.new_game({**config, "names": ["Zoë", "Ψ", "李", "🙂"]})
    rng = random.Random(3)
    for _ in range(60):
        if engine.is_over(state):
            break
        text = dump_engine_state(state)
        full = json.loads(engine.dumps(state))
        assert full["log"] == engine.log_entries(state) != []
        assert json.loads(text) == {**full, "log": []}
        loaded = load_engine_state(text)
        assert engine.log_entries(loaded) == []
        assert json.loads(engine.dumps(loaded)) == {**full, "log": []}
        assert engine.dumps(load_engine_state(engine.dumps(state))) == engine.dumps(state)
        state = engine.apply_action(state, rng.choice(engine.legal_actions(state)))
