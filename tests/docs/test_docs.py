"""The README, examples and packaging metadata stay true (docs/design.md §8)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import hoity_env
from hoity_env.engine.standard.observation import layout_markdown
from hoity_env.environment.padding import padded_layout_markdown
from tests.helpers import ROOT, api_pages, public_modules

README = (ROOT / "README.md").read_text(encoding="utf-8")
DOC_PAGES = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))}
ENVIRONMENT_PAGE = DOC_PAGES["environment.md"]
RULESETS_PAGE = DOC_PAGES["rulesets.md"]
# Every Python block of the README and of the docs pages, with where it stands. A block that
# trains for minutes is written as a MyST "{code-block} python" directive and is not run here.
PYTHON_BLOCKS = [
    (name, i, block)
    for name, text in [("README.md", README), *DOC_PAGES.items()]
    for i, block in enumerate(re.findall(r"```python\n(.*?)```", text, flags=re.S))
]


@pytest.mark.parametrize(
    ("page", "index", "block"), PYTHON_BLOCKS, ids=[f"{p}-{i}" for p, i, _ in PYTHON_BLOCKS]
)
def test_python_blocks_of_readme_and_docs_run(
    page: str,
    index: int,
    block: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)  # a block that saves a file (learning.md) writes it here, not in the checkout
    exec(compile(block, f"{page} block {index}", "exec"), {})
    assert capsys.readouterr().out  # every block prints something a reader can compare


def test_readme_quickstart_is_the_example_file() -> None:
    quick = (ROOT / "examples" / "quickstart.py").read_text(encoding="utf-8")
    body = quick.split('"""', 2)[2].strip()
    assert body in README
    assert len(body.splitlines()) <= 16


@pytest.mark.parametrize(
    "args",
    [
        ["examples/quickstart.py"],
        ["examples/random_game.py", "--seed", "3", "--players", "3"],
        ["examples/record_game.py", "--players", "3", "--out", "{tmp}"],
        ["examples/record_game.py", "--players", "3", "--rules", "original", "--out", "{tmp}"],
        ["examples/zoo_baseline.py", "--games", "4", "--workers", "1", "--no-progress", "--out", "{tmp}"],
        ["examples/hand_made_position.py", "--batch", "32"],
        ["examples/hand_made_position.py", "--rules", "original", "--batch", "32"],
    ],
)
def test_examples_run(args: list[str], tmp_path: Path) -> None:
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    out = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "player_0" in out.stdout


def test_observation_table_of_the_docs_matches_the_code() -> None:
    assert layout_markdown() in ENVIRONMENT_PAGE
    for rules in ("standard", "original"):
        assert padded_layout_markdown(rules) in ENVIRONMENT_PAGE


def test_readme_commands_and_ci_agree() -> None:
    commands = re.findall(r"^python3 -m venv .*$", README, flags=re.M)
    assert len(commands) == 2, commands
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI runs command 2 in a folder of its own, so that it never deletes the user's .venv.
    assert ".venv/" in commands[1] and ".ci-venv" not in commands[1]
    assert re.sub(r"(?<![\w-])\.venv\b", ".ci-venv", commands[1]) in ci.splitlines()
    assert "pytest" in commands[1]
    # Both install the browser the HTML viewer's test drives, with the same line: through sudo
    # where there is one, directly as root (CI, whose machine has no sudo).
    browser = re.findall(r"^command -v chromium .*apt-get install -y chromium; }$", README, flags=re.M)
    assert len(browser) == 1, "the README's test command must install chromium"
    assert browser[0] in ci.splitlines()
    code = [line for line in ci.splitlines() if not line.startswith("#")]
    assert "rm -rf .ci-venv" in code and not any(re.search(r"(?<![\w-])\.venv\b", line) for line in code)


def test_versions_agree() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r'^version = "(.+)"$', pyproject, flags=re.M).group(1) == hoity_env.__version__  # type: ignore[union-attr]
    assert re.search(r"^version: (.+)$", citation, flags=re.M).group(1) == hoity_env.__version__  # type: ignore[union-attr]


def test_citation_is_valid() -> None:
    # cffconvert has no ``python -m`` entry: use the console script beside this interpreter.
    script = Path(sys.executable).parent / "cffconvert"
    assert script.exists(), "cffconvert is missing: install the dev extra (pip install -e '.[dev]')"
    cmd = [str(script), "--validate", "-i", str(ROOT / "CITATION.cff")]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_packaging_files_exist() -> None:
    for name in ("LICENSE", "CITATION.cff", "hoity_env/py.typed", "docs/RULES.md", ".ci/run"):
        assert (ROOT / name).is_file(), name


def _sizes_for_each_player_count(pattern: str) -> tuple[int, int, list[int]]:
    """``a·n + b`` and the listed sizes for 2 … 6 players, as docs/environment.md states them."""
    match = re.search(
        pattern + r"[^:(]*[:(] *(\d+), (\d+), (\d+), (\d+), (\d+) for\s+2 … 6 players", ENVIRONMENT_PAGE
    )
    assert match, pattern
    a, b, *sizes = (int(g) for g in match.groups())
    return a, b, sizes


def test_docs_size_formulas_match_the_env() -> None:
    obs_a, obs_b, obs_sizes = _sizes_for_each_player_count(r"D = (\d+)·n \+ (\d+)")
    state_a, state_b, state_sizes = _sizes_for_each_player_count(r"\((\d+)·n \+ (\d+),\)")
    actions = re.search(r"N = 5 \+\s+`starting_money` \+ 1 = (\d+)", ENVIRONMENT_PAGE)
    assert actions
    for i, n in enumerate(range(2, 7)):
        env = hoity_env.parallel_env(num_players=n)
        obs = env.observation_space("player_0")["observation"].shape[0]
        state = env.state_space.shape[0]
        assert obs == obs_a * n + obs_b == obs_sizes[i], n
        assert state == state_a * n + state_b == state_sizes[i], n
        assert env.action_space("player_0").n == 5 + env.rules.starting_money + 1 == int(actions.group(1))


# Absolute paths of the machine that made a file (temporary folders, home folders).
MACHINE_PATH = re.compile(rb"(?<![\w.-])/(?:tmp|root|home|Users|private/var)/")


def _contents(name: str, data: bytes) -> Iterator[tuple[str, bytes]]:
    """A file's bytes, or for a zip archive (saved models) every member's, recursively."""
    if zipfile.is_zipfile(io.BytesIO(data)):
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for member in zf.namelist():
                yield from _contents(f"{name}:{member}", zf.read(member))
    else:
        yield name, data


def _machine_paths(name: str, data: bytes) -> list[str]:
    return [
        f"{where}: {m.group(0).decode()}"
        for where, blob in _contents(name, data)
        for m in MACHINE_PATH.finditer(blob)
    ]


def test_shipped_artifacts_carry_no_machine_paths() -> None:
    built = (ROOT / "docs" / "_build", ROOT / "docs" / "api" / "generated")  # a local build, not shipped
    files = sorted(p for p in (ROOT / "docs").rglob("*") if p.is_file() and not p.is_relative_to(built[0]))
    files = [p for p in files if not p.is_relative_to(built[1])]
    assert any(p.suffix == ".zip" for p in files)  # the reference model is among them
    found = [hit for p in files for hit in _machine_paths(str(p.relative_to(ROOT)), p.read_bytes())]
    assert found == []


def test_machine_path_scan_looks_inside_saved_models() -> None:
    # Guards the test above: a model zip whose (compressed) data names a TensorBoard folder.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("data", '{"tensorboard_log": "/tmp/ref2/reference/tb"}')
    assert b"/tmp/" not in buffer.getvalue()  # invisible without unzipping
    assert _machine_paths("m.zip", buffer.getvalue()) == ["m.zip:data: /tmp/"]
    assert _machine_paths("a.md", b"runs/ppo/tb and docs/home/x and a.b/tmp/c") == []


RULES = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
DESIGN = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
CITING = [
    "hoity_env",
    "training",
    "examples",
    "benchmarks",
    "tests",
    "README.md",
    "docs",
    "pyproject.toml",
    ".ci",
]
RULE_ID = re.compile(r"\b([CSO]-\d+)(?:\.(\d+))?\b")
DESIGN_CITATION = re.compile(r"design\.md\)?((?:,? *§\d+)+)")


def _citing_files() -> list[Path]:
    files: list[Path] = []
    for name in CITING:
        path = ROOT / name
        files += (
            [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.suffix in (".py", ".md", ""))
        )
    return [p for p in files if p.is_file() and not {"__pycache__", "_build", "generated"} & set(p.parts)]


def _rule_blocks(text: str) -> dict[str, str]:
    """Each rule id defined in RULES.md (``**S-6 Castle.**``) with its text up to the next one."""
    heads = list(re.finditer(r"^\*\*([CSO]-\d+)\b", text, flags=re.M))
    ends = [m.start() for m in heads[1:]] + [len(text)]
    return {m.group(1): text[m.start() : end] for m, end in zip(heads, ends, strict=True)}


def _missing_rule_ids(text: str, blocks: dict[str, str]) -> set[str]:
    """Cited ids that RULES.md does not define (``S-6.2``: item 2 of the numbered list of S-6)."""
    missing = set()
    for m in RULE_ID.finditer(text):
        rule, item = m.group(1), m.group(2)
        if rule not in blocks or (item and not re.search(rf"^{item}\. ", blocks[rule], flags=re.M)):
            missing.add(m.group(0))
    return missing


def _design_sections() -> set[str]:
    return set(re.findall(r"^## (\d+)\. ", DESIGN, flags=re.M))


def _missing_design_sections(text: str, sections: set[str]) -> set[str]:
    cited = {n for m in DESIGN_CITATION.finditer(text) for n in re.findall(r"§(\d+)", m.group(1))}
    return {f"§{n}" for n in cited - sections}


def test_every_cited_rule_id_and_design_section_exists() -> None:
    blocks, sections = _rule_blocks(RULES), _design_sections()
    assert sections == {str(n) for n in range(1, 9)}  # §1 architecture … §8 set-up, tests, CI
    files = _citing_files()
    assert len(files) > 50
    missing = {}
    for path in files:
        text = path.read_text(encoding="utf-8")
        bad = _missing_rule_ids(text, blocks) | _missing_design_sections(text, sections)
        if bad:
            missing[str(path.relative_to(ROOT))] = sorted(bad)
        assert "DESIGN" + " §" not in text, path  # the old name of a document the repository does not have
    assert missing == {}
    assert "closing notes" not in README


def test_citation_checks_see_what_is_missing() -> None:
    # Guards the test above (ids assembled here so that this file cites none that are missing).
    blocks = _rule_blocks(RULES)
    assert _missing_rule_ids("see " + "S-" + "6.2 and C-" + "4", blocks) == set()
    assert _missing_rule_ids("see " + "S-" + "6.9 and S-" + "42", blocks) == {"S-" + "6.9", "S-" + "42"}
    cited = "docs/design" + ".md §3, §" + "9 and (docs/design" + ".md) §" + "12"
    assert _missing_design_sections(cited, {"3"}) == {"§9", "§12"}


def test_readme_activates_the_venv_before_bare_commands() -> None:
    # After the two set-up commands, the README's commands use a bare `python`/`hoity-eval`,
    # which in a fresh shell exist only inside the activated virtual environment.
    activate = README.find("source .venv/bin/activate")
    first_bare = re.search(r"(^|`)(python|hoity-eval) [\w-]", README, flags=re.M)
    assert first_bare is not None
    assert 0 <= activate < first_bare.start()


def test_readme_says_where_the_cpu_build_of_torch_comes_from() -> None:
    assert "--index-url https://download.pytorch.org/whl/cpu" in README


def test_docs_original_ruleset_tables_match_the_code() -> None:  # RULES O-4, docs/rulesets.md's tables
    from hoity_env.engine.original.observation import original_layout_markdown

    assert original_layout_markdown() in RULESETS_PAGE
    five = r",\s+".join([r"(\d+)"] * 5)
    dims = re.search(r"4·n² \+ 27·n \+ 33:\s+" + five, RULESETS_PAGE)
    states = re.search(r"4·n² \+ 36·n \+ 24 entries \(" + five + r"\s+for", RULESETS_PAGE)
    assert dims and states
    for i, n in enumerate(range(2, 7)):
        env = hoity_env.parallel_env(num_players=n, rules="original")
        obs = env.observation_space("player_0")["observation"].shape[0]
        assert obs == 4 * n * n + 27 * n + 33 == int(dims.group(i + 1)), n
        assert env.state_space.shape[0] == 4 * n * n + 36 * n + 24 == int(states.group(i + 1)), n
        assert env.action_space("player_0").n == 7 + 2 * env.rules.max_check == 55


def test_every_public_module_has_its_own_api_page(tmp_path: Path) -> None:
    """Issue 35: ``hoity_env.evaluation.tournament`` and ``hoity_env.strength.ladder`` were documented
    as the functions of the same names (autosummary resolves a name through the package first)."""
    public = public_modules()
    assert {"hoity_env.evaluation.tournament", "hoity_env.strength.ladder", "hoity_env.cli.eval"} <= public
    written = api_pages().write_pages(tmp_path)
    assert public <= set(written), sorted(public - set(written))
    for name in written:  # each page documents the module itself, by its full path
        page = (tmp_path / "api" / "generated" / f"{name}.rst").read_text(encoding="utf-8")
        assert f"\n.. automodule:: {name}\n" in page, name
    index = (tmp_path / "api" / "generated" / "packages.inc").read_text(encoding="utf-8")
    packages = [n for n in written if (ROOT / n.replace(".", "/") / "__init__.py").is_file()]
    assert len(packages) > 10 and all(f":mod:`{p}`" in index for p in packages)
