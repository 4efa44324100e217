"""Table records (column specs and cells with value, display text and link) and their two renderings.

Tables are computed as records before anything renders them: the same record becomes server-side
HTML (submission and problem pages) or compact JSON that the browser renders (the home page, which
switches hardware and baseline without a reload). Links are relative to the site root; each renderer
prefixes them with the way back to the root from where the table is shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from typing import Any, NamedTuple


@dataclass(frozen=True)
class Column:
    label: str
    title: str = ""
    """Tooltip: what the column means."""
    numeric: bool = True
    better_is_lower: bool = False
    """Sort ascending first when the column header is clicked (times, ranks)."""
    filter: bool = False
    """Readers can filter rows by this column's values (a select in the page's filter bar)."""
    narrow: bool = True
    """Shown on a phone; the other columns are one tap away ("all columns")."""
    text_sorts: bool = False
    """The displayed text sorts like the value (`42.0%`, `84/100`): no data-sort attribute, fewer bytes."""
    bare: bool = False
    """Cells carry no class (the table's CSS aligns them): for tables of tens of thousands of cells."""
    wrap: bool = False
    """Long text (a name) wraps on a phone, so the numbers beside it fit the screen."""


class Cell(NamedTuple):
    """One table cell (a NamedTuple rather than a dataclass: pages hold millions of them)."""

    value: float | str | None
    """Sort key; None sorts last in either direction."""
    display: str
    link: str | None = None
    """Site-root-relative target (`submissions/x/`), or `#anchor` on the same page."""
    css: str = ""
    """Extra class on the cell content, e.g. a status or verified badge."""
    title: str = ""


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    rows: tuple[tuple[Cell, ...], ...]
    sort_column: int | None = None
    """Column the rows are already sorted by (descending unless better_is_lower)."""
    css: str = ""
    row_css: tuple[str, ...] = ()
    """A class per row (reference rows are styled apart); empty: no classes."""


def speedup_text(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.3g}×" if value < 100 else f"{value:,.0f}×"


def percent_text(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{100 * value:.1f}%"


def ms_text(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.3g} ms" if value >= 0.001 else f"{value * 1000:.3g} µs"


def quantity_text(value: float | None, unit: str) -> str:
    """`2.15e9` FLOP -> `2.15 GFLOP`."""
    if value is None or not math.isfinite(value):
        return "–"
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def number(value: Any) -> float | None:
    """A finite float or None (pandas hands NaN for missing values)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _href(link: str, root: str) -> str:
    return link if link.startswith(("#", "http://", "https://")) else root + link


def _cell_classes(column: Column) -> str:
    if column.bare:
        return ""
    names = ("kb-num" if column.numeric else "", "" if column.narrow else "kb-wide", "kb-wrap" if column.wrap else "")
    classes = " ".join(c for c in names if c)
    return f' class="{classes}"' if classes else ""


def _cell_html(cell: Cell, attrs: str, root: str, text_sorts: bool = False) -> str:
    """`attrs`: the column's class attribute, computed once per table (pages hold millions of cells)."""
    value, display, link, css, title = cell
    text = escape(display, quote=False)
    if css:
        text = f'<span class="{css}">{text}</span>'
    if link:
        text = f'<a href="{escape(_href(link, root))}">{text}</a>'
    if value is not None and value != display and not text_sorts:
        attrs += f' data-sort="{escape(str(value))}"'
    if title:
        attrs += f' title="{escape(title)}"'
    return f"<td{attrs}>{text}</td>"


def _header_html(index: int, column: Column, table: Table) -> str:
    attrs = ' data-type="num"' if column.numeric else ""
    if column.filter:
        attrs += ' data-filter="1"'
    if not column.narrow:
        attrs += ' class="kb-wide"'
    if column.better_is_lower:
        attrs += ' data-asc-first="1"'
    if column.title:
        attrs += f' title="{escape(column.title)}"'
    if table.sort_column == index:
        attrs += f' aria-sort="{"ascending" if column.better_is_lower else "descending"}"'
    return f"<th{attrs}>{escape(column.label)}</th>"


def table_html(table: Table, root: str) -> str:
    """Sortable HTML table; `root` leads from the page back to the site root (`../../`)."""
    head = "".join(_header_html(i, c, table) for i, c in enumerate(table.columns))
    classes = [_cell_classes(column) for column in table.columns]
    text_sorting = [column.text_sorts for column in table.columns]
    row_css = table.row_css or ("",) * len(table.rows)
    body = "\n".join(
        (f'<tr class="{css}">' if css else "<tr>")
        + "".join([_cell_html(cell, attrs, root, sorts)
                 for cell, attrs, sorts in zip(row, classes, text_sorting, strict=True)])
        + "</tr>"
        for row, css in zip(table.rows, row_css, strict=True)
    )
    css = f"kb-table kb-sortable {table.css}".strip()
    markup = f'<table class="{css}">\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody></table>'
    return f'<div class="kb-table-wrap">{markup}</div>'


def _cell_json(cell: Cell) -> list[Any]:
    packed: list[Any] = [cell.value, cell.display]
    extra = (cell.link, cell.css, cell.title)
    while extra and not extra[-1]:
        extra = extra[:-1]
    packed.extend(x or None for x in extra)
    return packed


def table_json(table: Table) -> dict[str, Any]:
    """Compact form for the browser: each cell `[value, display, link?, css?, title?]`."""
    return {
        "columns": [
            {"label": c.label, "title": c.title, "numeric": c.numeric, "asc": c.better_is_lower} for c in table.columns
        ],
        "sort": table.sort_column,
        "rows": [[_cell_json(cell) for cell in row] for row in table.rows],
    }
