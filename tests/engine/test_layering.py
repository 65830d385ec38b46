"""The engine is pure: it never imports gymnasium, pettingzoo, torch or Pillow (docs/design.md §1)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import hoity_env.engine

FORBIDDEN = ("gymnasium", "pettingzoo", "torch", "PIL")
ENGINE_DIR = Path(hoity_env.engine.__file__).resolve().parent


_REPORT = f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})))\n"


def _forbidden_modules_after(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_engine_import_through_the_package_stays_light() -> None:
    # ``from hoity_env.engine import Game`` runs the package __init__ too: it must not pull in
    # PettingZoo or Gymnasium (they are registered lazily, see hoity_env/registration.py).
    code = "import json, sys\nfrom hoity_env.engine import Game\nimport hoity_env\nGame('standard', 3)\n"
    assert _forbidden_modules_after(code + _REPORT) == []


@pytest.mark.parametrize(
    "code",
    [
        "import hoity_env\nimport pettingzoo, gymnasium\n",  # framework imported after hoity_env
        "import pettingzoo, gymnasium\nimport hoity_env\n",  # ... or before it
        "import gymnasium\nimport hoity_env\nimport pettingzoo\n",  # ... or one of each
    ],
)
def test_import_hoity_env_still_registers_the_ids(code: str) -> None:
    check = (
        "p = pettingzoo.make('parallel', 'hoity/HoityToity-v0')\n"
        "a = pettingzoo.make('aec', 'hoity/HoityToity-v0')\n"
        "g = gymnasium.make('hoity/HoityToityVsBots-v0')\n"
        "assert type(p).__name__ == 'HoityParallelEnv', p\n"
        "assert hoity_env.parallel_env().num_players == 4 and hoity_env.env() is not None\n"
        "print(g.spec.id)\n"
    )
    out = subprocess.run([sys.executable, "-c", code + check], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "hoity/HoityToityVsBots-v0"


def test_gymnasium_makes_the_id_that_names_the_module_without_importing_hoity_env() -> None:
    # Gymnasium >= 1.0 loads no plugin entry points: "module:id" is how a tool that takes only an
    # id (SB3's make_vec_env) reaches an env whose package nobody imported. Registering again
    # afterwards (the import, then register_envs) must neither warn (-W error) nor fail.
    code = (
        "import sys, gymnasium\n"
        "g = gymnasium.make('hoity_env:hoity/HoityToityVsBots-v0')\n"
        "import hoity_env, hoity_env.registration\n"
        "hoity_env.registration.register_envs()\n"
        "h = gymnasium.make('hoity/HoityToityVsBots-v0')\n"
        "from stable_baselines3.common.env_util import make_vec_env\n"
        "v = make_vec_env('hoity_env:hoity/HoityToityVsBots-v0', n_envs=2)\n"
        "print(g.spec.id, h.spec.id, v.reset().shape)\n"
    )
    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", code], capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["hoity/HoityToityVsBots-v0", "hoity/HoityToityVsBots-v0", "(2,", "117)"]


def test_the_batched_env_is_reachable_from_the_top_level_and_loaded_on_first_use() -> None:
    import hoity_env
    from hoity_env.environment.batched import BatchedHoityEnv

    assert hoity_env.BatchedHoityEnv is BatchedHoityEnv and "BatchedHoityEnv" in hoity_env.__all__
    # ``import hoity_env`` stays light (the test above); naming the env is what loads the adapters.
    used = "import json, sys\nimport hoity_env\nhoity_env.BatchedHoityEnv(num_envs=1)\n"
    assert "gymnasium" in _forbidden_modules_after(used + _REPORT)


def test_unknown_package_attributes_still_raise() -> None:
    import hoity_env

    with pytest.raises(AttributeError, match="no_such_thing"):
        _ = hoity_env.no_such_thing  # type: ignore[attr-defined]


def test_engine_modules_alone_do_not_import_frameworks() -> None:
    # Bypass the package __init__ and make the frameworks unimportable: the engine still works.
    package_dir = str(ENGINE_DIR.parent)
    code = (
        "import json, sys, types\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name.split('.')[0] in {FORBIDDEN!r}:\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "pkg = types.ModuleType('hoity_env')\n"
        f"pkg.__path__ = [{package_dir!r}]\n"
        "sys.modules['hoity_env'] = pkg\n"
        "import hoity_env.engine\n"
        "from hoity_env.engine import Game\n"
        "import numpy as np\n"
        "g = Game('standard', 4)\n"
        "s = g.new_state(0)\n"
        "r = np.random.default_rng(0)\n"
        "while not s.done:\n"
        "    g.step(s, [int(r.choice(np.flatnonzero(row))) for row in g.legal_masks(s)])\n"
        "assert 'hoity_env.environment' not in sys.modules\n"
    )
    assert _forbidden_modules_after(code + _REPORT) == []


def test_subprocess_check_can_see_a_forbidden_import() -> None:
    # Guards the test above: the same check reports a framework that *is* imported.
    assert "gymnasium" in _forbidden_modules_after("import json, sys\nimport gymnasium\n" + _REPORT)


def _engine_files() -> list[Path]:
    files = sorted(ENGINE_DIR.rglob("*.py"))
    assert len(files) >= 10, files  # config, cards, exhibitions, state, actions, auction, castle, ...
    return files


def _imported_roots(source: str) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, (ast.Name, ast.Attribute))
            and getattr(node.func, "id", getattr(node.func, "attr", "")) in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            roots.add(node.args[0].value.split(".")[0])
    return roots


@pytest.mark.parametrize("path", _engine_files(), ids=lambda p: p.name)
def test_engine_source_does_not_import_frameworks(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert not _imported_roots(source) & set(FORBIDDEN), path
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith(("import ", "from ")):
            assert not any(stripped.split()[1].split(".")[0] == name for name in FORBIDDEN), line


def test_import_scanner_finds_forbidden_imports() -> None:
    assert _imported_roots("import torch.nn as nn") == {"torch"}
    assert _imported_roots("from pettingzoo.utils import agent_selector") == {"pettingzoo"}
    assert _imported_roots("import importlib\nimportlib.import_module('gymnasium.spaces')") == {
        "importlib",
        "gymnasium",
    }
    assert _imported_roots("from . import state") == set()


def test_state_reader_does_not_import_the_state_module() -> None:
    # One-way dependency: ``state`` uses ``state_io`` to read dicts, never the reverse.
    tree = ast.parse((ENGINE_DIR / "state_io.py").read_text())
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
    } | {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    assert "hoity_env.engine.state" not in imported
    assert "hoity_env.engine.state_io" in {
        node.module
        for node in ast.walk(ast.parse((ENGINE_DIR / "state.py").read_text()))
        if isinstance(node, ast.ImportFrom)
    }


# ------------------------------------------------- evaluation below strength below training
PACKAGE_DIR = ENGINE_DIR.parent


def _hoity_imports(path: Path) -> set[str]:
    """Every ``hoity_env.*`` (or ``training``) module a file imports, at any depth, lazily or not."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in ("hoity_env", "training", "common")}


def _package_files(name: str) -> list[Path]:
    files = sorted((PACKAGE_DIR / name).rglob("*.py"))
    assert files, name
    return files


def _under(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


@pytest.mark.parametrize("path", _package_files("evaluation"), ids=lambda p: p.name)
def test_the_match_part_imports_nothing_from_strength_or_training(path: Path) -> None:
    # Playing matches is below measuring strength by training: the layers import only downward.
    upward = [
        m
        for m in _hoity_imports(path)
        if _under(m, "hoity_env.strength", "hoity_env.cli.eval", "training", "common")
    ]
    assert upward == [], path


@pytest.mark.parametrize("path", _package_files("strength"), ids=lambda p: p.name)
def test_strength_imports_nothing_from_training_or_the_cli_above_it(path: Path) -> None:
    upward = [m for m in _hoity_imports(path) if _under(m, "training", "common", "hoity_env.cli.eval")]
    assert upward == [], path


def test_the_hoity_eval_entry_point_sits_above_both() -> None:
    imports = _hoity_imports(PACKAGE_DIR / "cli" / "eval.py")
    assert any(_under(m, "hoity_env.strength") for m in imports)
    assert any(_under(m, "hoity_env.evaluation") for m in imports)


def test_the_layer_scanner_sees_lazy_and_nested_imports(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text(
        "def f():\n    from hoity_env.strength import ladder\n    import training.common\n", encoding="utf-8"
    )
    assert _hoity_imports(source) == {
        "hoity_env.strength",
        "hoity_env.strength.ladder",
        "training.common",
    }


def test_the_reports_renderers_do_not_import_the_results() -> None:
    # results -> markdown/plots, never back (not even for type checking): no import circle.
    for name in ("markdown.py", "plots.py", "rows.py", "serialize.py"):
        imports = _hoity_imports(PACKAGE_DIR / "evaluation" / "reports" / name)
        assert not any(_under(m, "hoity_env.evaluation.reports.results") for m in imports), name
