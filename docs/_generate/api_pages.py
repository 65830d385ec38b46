"""The API reference's pages: one per module of the package, by its full dotted path.

``docs/conf.py`` calls :func:`write_pages` before every build, so a new module gets its
page without editing anything.  Why not autosummary's recursive summary, which the site
used before: it finds a package's modules through the package's attributes, so where a
package exports a function named like one of its modules (``hoity_env.evaluation.tournament``,
``hoity_env.strength.ladder``, ``hoity_env.environment.parallel``) it documented the
function in the module's place, and the module, its docstring and every other name it
defines vanished from the site.  Here each page is an ``automodule`` of the module's full
path (the public API, ``from hoity_env.strength import ladder``, is untouched), a package's
page lists its modules, and the API index lists every subpackage.

The module pages are ``:orphan:`` (in no toctree) and linked from the index and their
package's page instead: furo draws the whole navigation tree into every page, and with 160
module pages in it that took half of the build's CPU time.

One clash is left to settle: a package that *defines* a function named like one of its
modules (``hoity_env.environment.parallel``) would give two objects one name; the
module keeps the name (its page is the reference), and the package page shows the
function with ``:no-index:``.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from hoity_env.files import write_atomically  # noqa: E402

PACKAGE = "hoity_env"
OUT = Path("api") / "generated"
"""Where the pages go, under the documentation's source folder (git ignores it)."""


def module_names(root: Path = ROOT) -> list[str]:
    """Every module and package of the package, by dotted name (``python -m`` entry points left out:
    their command line is documented instead)."""
    names = set()
    for path in (root / PACKAGE).rglob("*.py"):
        if path.name == "__main__.py" or "__pycache__" in path.parts:
            continue
        names.add(".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__"))
    return sorted(names)


def children(name: str, names: list[str]) -> list[str]:
    """The modules and subpackages directly inside package ``name``."""
    depth = name.count(".") + 1
    return [n for n in names if n.startswith(name + ".") and n.count(".") == depth]


def defined_functions(name: str, root: Path = ROOT) -> set[str]:
    """Names of the functions and classes a package's ``__init__`` defines itself (not imports)."""
    init = root.joinpath(*name.split("."), "__init__.py")
    if not init.is_file():
        return set()
    tree = ast.parse(init.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def module_table(names: list[str], root: Path = ROOT, header: str = "module") -> list[str]:
    """A table of links to ``names``' pages, each with its docstring's first line."""
    lines = [".. list-table::", "   :header-rows: 1", "   :widths: 30 70", ""]
    lines += [f"   * - {header}", "     - what it holds"]
    for n in names:
        lines += [f"   * - :mod:`{n}`", f"     - {summary(n, root)}"]
    return lines


def page_text(name: str, names: list[str], root: Path = ROOT) -> str:
    """The reStructuredText of module ``name``'s page."""
    title = name.replace("_", r"\_")
    lines = [":orphan:", "", title, "=" * len(title), "", f".. automodule:: {name}"]
    inside = children(name, names)
    clashes = sorted(defined_functions(name, root) & {c.rpartition(".")[2] for c in inside})
    if clashes:
        lines.append(f"   :exclude-members: {', '.join(clashes)}")
        for clash in clashes:  # the module of that name owns it (module docstring)
            lines += ["", f".. autofunction:: {name}.{clash}", "   :no-index:"]
    if inside:
        lines += ["", ".. rubric:: Modules", "", *module_table(inside, root)]
    return "\n".join(lines) + "\n"


def summary(name: str, root: Path = ROOT) -> str:
    """The first line of a module's docstring (read from the file: nothing is imported)."""
    parts = name.split(".")
    path = root.joinpath(*parts, "__init__.py")
    if not path.is_file():
        path = root.joinpath(*parts[:-1], parts[-1] + ".py")
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def index_text(names: list[str], root: Path = ROOT) -> str:
    """The API index's body (included by ``api/index.rst``): every subpackage with its summary."""
    packages = [n for n in names if root.joinpath(*n.split("."), "__init__.py").is_file()]
    return "\n".join(module_table(packages, root, header="package")) + "\n"


def _write(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (Sphinx then keeps its cache), atomically."""
    if not path.is_file() or path.read_text(encoding="utf-8") != text:
        write_atomically(path, text)


def write_pages(srcdir: Path, root: Path = ROOT) -> list[str]:
    """Write every module's page and the index's table under ``srcdir/api/generated``; drop stale pages.

    Returns the modules written.
    """
    names = module_names(root)
    out = srcdir / OUT
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        _write(out / f"{name}.rst", page_text(name, names, root))
    _write(out / "packages.inc", index_text(names, root))
    for stale in set(out.glob("*.rst")) - {out / f"{n}.rst" for n in names}:
        stale.unlink()
    return names
