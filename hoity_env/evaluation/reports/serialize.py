"""The exact JSON and CSV forms every result shares (a mixin), typed by the dataclasses' hints.

Results are frozen dataclasses of plain values, so ``from_json(r.to_json()) == r``: floats are written
with ``repr`` precision and read back bit for bit, and the CSV table of rows is exact too.  Both forms
write fields in :func:`columns` order, which puts a row's key columns (``LEAD``) before the win tally it
inherits.  See docs/evaluation.md.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from hoity_env.files import write_atomically

__all__ = ["JsonResult", "TableResult", "columns", "ordered_asdict", "rows_from_csv", "rows_to_csv"]

T = TypeVar("T")


def columns(cls: type[Any]) -> list[str]:
    """The written order of a dataclass's fields: its ``LEAD`` names, then the others as declared.

    Inherited fields are declared first, so for a row this is its key columns, the win
    tally's, then its own; a class without ``LEAD`` is written as declared.
    """
    names = [f.name for f in dataclasses.fields(cls)]
    lead = list(getattr(cls, "LEAD", ()))
    if not set(lead) <= set(names):
        raise TypeError(f"{cls.__name__}.LEAD names {sorted(set(lead) - set(names))}, not fields")
    return lead + [n for n in names if n not in lead]


def ordered_asdict(value: Any) -> Any:
    """:func:`dataclasses.asdict`, each dataclass's fields in :func:`columns` order (tuples stay tuples)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {n: ordered_asdict(getattr(value, n)) for n in columns(type(value))}
    if isinstance(value, (list, tuple)):
        return type(value)(ordered_asdict(v) for v in value)
    if isinstance(value, dict):
        return {k: ordered_asdict(v) for k, v in value.items()}
    return value


class JsonResult:
    """JSON round trip shared by the result classes (exact, via their type hints)."""

    def to_dict(self) -> dict[str, Any]:
        """Plain dicts, tuples and scalars, fields in :func:`columns` order (JSON writes tuples as lists)."""
        plain: dict[str, Any] = ordered_asdict(self)
        return plain

    def to_json(self) -> str:
        """JSON text, one game record or table row per line; ``from_json`` gives back an equal object."""
        return _pretty(self.to_dict(), 0)

    @classmethod
    def from_json(cls: type[T], text: str) -> T:
        """Parse :meth:`to_json` output (raises ``ValueError`` on malformed input)."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON result: {exc}") from exc
        result: T = _build(cls, data, cls.__name__)
        return result

    @classmethod
    def from_dict(cls: type[T], data: Any) -> T:
        """The object :meth:`to_dict` gave ``data`` (raises ``ValueError`` on a malformed one)."""
        result: T = _build(cls, data, cls.__name__)
        return result

    def save_json(self, path: str | Path) -> None:
        """Write :meth:`to_json` to ``path`` (atomically: a kill mid-write leaves no half file)."""
        write_atomically(path, self.to_json() + "\n")


class TableResult(JsonResult):
    """A result whose CSV form is one of its fields, a tuple of rows of type ``ROW``."""

    ROWS: ClassVar[str]
    """The name of the field that holds the CSV rows."""
    ROW: ClassVar[type]
    """The row dataclass (its :func:`columns` are the CSV header)."""
    SKIP: ClassVar[tuple[str, ...]] = ()
    """Row fields left out of the CSV (nested values, kept in the JSON)."""

    def to_csv(self) -> str:
        """The table as CSV, floats at full precision."""
        return rows_to_csv(getattr(self, self.ROWS), self.ROW, self.SKIP)

    @classmethod
    def from_csv(cls, text: str) -> tuple[Any, ...]:
        """Parse :meth:`to_csv` output back into the rows (``SKIP`` fields come back empty)."""
        return rows_from_csv(text, cls.ROW, cls.SKIP)


def _flat(value: Any) -> bool:
    """A scalar, a list of scalars, or a dict of those: short enough for one line."""
    if isinstance(value, dict):
        return all(_flat(v) and not isinstance(v, dict) for v in value.values())
    if isinstance(value, (list, tuple)):  # ordered_asdict keeps tuples
        return all(not isinstance(v, (dict, list, tuple)) for v in value)
    return True


def _pretty(value: Any, level: int) -> str:
    """Indented JSON that keeps flat values (a game record, a table row) on one line each."""
    if _flat(value):
        return json.dumps(value, separators=(", ", ": "))
    pad, inner = " " * level, " " * (level + 1)
    if isinstance(value, dict):
        items = [f"{inner}{json.dumps(k)}: {_pretty(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [inner + _pretty(v, level + 1) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"


# ----------------------------------------------------------------- CSV rows
def rows_to_csv(rows: Sequence[Any], cls: type[Any], skip: Sequence[str] = ()) -> str:
    """CSV with a header of ``cls``'s :func:`columns` (less ``skip``); floats keep full ``repr`` precision."""
    names = [n for n in columns(cls) if n not in skip]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names)
    for row in rows:
        writer.writerow([repr(v) if isinstance(v, float) else v for v in (getattr(row, n) for n in names)])
    return out.getvalue()


def rows_from_csv(text: str, cls: type[T], skip: Sequence[str] = ()) -> tuple[T, ...]:
    """Inverse of :func:`rows_to_csv` (raises ``ValueError`` on a wrong header or value).

    The ``skip`` fields, which the CSV leaves out (nested values, kept in the JSON), come
    back empty (``()``).  A column may be missing where its field has a default: files
    written before a field was added still read, with the default.
    """
    reader = csv.DictReader(io.StringIO(text))
    names = [n for n in columns(cls) if n not in skip]
    header = list(reader.fieldnames or ())
    defaulted = {
        f.name
        for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    }
    if header != [n for n in names if n in header] or not set(names) - set(header) <= defaulted:
        raise ValueError(f"CSV header {reader.fieldnames} does not match {cls.__name__} fields {names}")
    hints = typing.get_type_hints(cls)
    rows = []
    for i, raw in enumerate(reader):
        values = {n: _parse_cell(hints[n], raw[n], f"row {i + 1} column {n!r}") for n in header}
        rows.append(cls(**values, **dict.fromkeys(skip, ())))
    return tuple(rows)


def _parse_cell(tp: Any, cell: str | None, where: str) -> Any:
    if cell is None:
        raise ValueError(f"CSV {where} is missing")
    try:
        if tp is bool:
            if cell not in ("True", "False"):
                raise ValueError(cell)
            return cell == "True"
        if tp in (int, float):
            return tp(cell)
    except ValueError as exc:
        raise ValueError(f"CSV {where}: bad value {cell!r}") from exc
    return cell


# ------------------------------------------------------- typed JSON loading
def _build(tp: Any, data: Any, where: str) -> Any:
    """Rebuild a value of type ``tp`` from its JSON form, checking types on the way."""
    origin = typing.get_origin(tp)
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected an object for {tp.__name__}, got {type(data).__name__}")
        hints = typing.get_type_hints(tp)
        fields = [f.name for f in dataclasses.fields(tp)]
        # A field added later with a default may be absent (results written before it existed).
        required = {
            f.name
            for f in dataclasses.fields(tp)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        if not required <= set(data) <= set(fields):
            raise ValueError(f"{where}: fields {sorted(data)} do not match {tp.__name__} {sorted(fields)}")
        return tp(**{n: _build(hints[n], data[n], f"{where}.{n}") for n in fields if n in data})
    if origin is tuple:
        args = typing.get_args(tp)
        if not isinstance(data, list):
            raise ValueError(f"{where}: expected a list, got {type(data).__name__}")
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_build(args[0], v, f"{where}[{i}]") for i, v in enumerate(data))
        if len(args) != len(data):
            raise ValueError(f"{where}: expected {len(args)} items, got {len(data)}")
        return tuple(_build(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, data, strict=True)))
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in typing.get_args(tp):
            return None
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _build(inner[0], data, where)
    if tp is float and isinstance(data, (int, float)) and not isinstance(data, bool):
        return float(data)
    if tp in (int, str, bool) and type(data) is tp:
        return data
    raise ValueError(f"{where}: expected {getattr(tp, '__name__', tp)}, got {data!r}")
