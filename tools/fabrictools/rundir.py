"""Reading what `fabric-run --out DIR` writes: summary.json and the CSV traces.

Every tool reads a run directory through this module: the CSV traces (queues.csv, pfc.csv,
flows.csv, links.csv, rates.csv, cc.csv, reorder.csv, collective.csv, ...) each stored as
NAME.csv or, above trace.gzip_above, NAME.csv.gz; summary.json; and tables that are not traces
but the same kind of file (a sweep's sweep.csv). Columns are found by name (trimmed,
case-insensitive), rows come numbered by their line in the file, and values are converted per
column on request (typed rows).

A problem raises RunDirError, one subclass per kind, whose message names the file and, for a
value, the line and the column. Strict readers (tools/validate, the studies) let it propagate;
tolerant ones (tools/plot, tools/summary, tools/sweep) catch it and carry on without the file,
because a run legitimately omits outputs (no PFC events, rate sampling off).
"""

import csv
import gzip
import json
import os
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

SUMMARY_JSON = "summary.json"
QUEUES_CSV = "queues.csv"
PFC_CSV = "pfc.csv"
FLOWS_CSV = "flows.csv"
LINKS_CSV = "links.csv"
RATES_CSV = "rates.csv"
CC_CSV = "cc.csv"
REORDER_CSV = "reorder.csv"
TRIMS_CSV = "trims.csv"
COLLECTIVE_CSV = "collective.csv"
REQUESTS_CSV = "requests.csv"  # host path stage boundaries (docs/models.md#remote-read-stages)

Column = Union[str, Sequence[str]]  # a column name, or alternative names for one column
Converter = Callable[[str], object]


class RunDirError(ValueError):
    """A file of a run directory is missing or unusable; str() says which and why."""

    def __init__(self, path: str, message: str, line: Optional[int] = None):
        super().__init__(f"{path}{'' if line is None else f':{line}'}: {message}")
        self.path = path
        self.line = line
        self.reason = message


class MissingFile(RunDirError):
    pass


class EmptyFile(RunDirError):
    """A CSV without even a header line."""


class MissingColumn(RunDirError):
    def __init__(self, path: str, columns: Sequence[str], header: Sequence[str]):
        super().__init__(path, f"column {', '.join(repr(c) for c in columns)} missing "
                               f"(header: {','.join(header)})")
        self.columns = list(columns)


class BadValue(RunDirError):
    def __init__(self, path: str, line: int, column: str, text: str):
        super().__init__(path, f"column '{column}': bad value {text!r}", line)
        self.column, self.text = column, text


class BadSummary(RunDirError):
    """summary.json that is not JSON, or not a JSON object."""


def optional_int(text: str) -> Optional[int]:
    """Converter for integer columns a row may leave empty (finish_ns of an unfinished flow)."""
    return int(text) if text else None


def trace_path(run_dir: str, name: str) -> str:
    """RUN_DIR/NAME, or RUN_DIR/NAME.gz when only the compressed trace exists."""
    path = os.path.join(run_dir, name)
    if not os.path.isfile(path) and os.path.isfile(path + ".gz"):
        return path + ".gz"
    return path


def read_summary(run_dir: str) -> dict:
    """summary.json as a dict."""
    path = os.path.join(run_dir, SUMMARY_JSON)
    if not os.path.isfile(path):
        raise MissingFile(path, "missing")
    try:
        with open(path) as handle:
            data = json.load(handle)
    except (OSError, ValueError) as err:
        raise BadSummary(path, f"unreadable ({err})") from err
    if not isinstance(data, dict):
        raise BadSummary(path, "not a JSON object")
    return data


def summary_field(summary: dict, *keys: str):
    """summary["a"]["b"]... for keys a, b, ...; raises when a level is missing."""
    node = summary
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            raise RunDirError(SUMMARY_JSON, f"field {'.'.join(keys)} missing")
        node = node[key]
    return node


class Table:
    """One CSV file opened for reading: its header, then its rows numbered by line.

    Opening reads the header only, so a caller can stream a large trace (queues.csv of a big
    run has millions of rows) and keep just the rows it needs. Use it as a context manager, or
    exhaust one of its iterators, to close the file.
    """

    def __init__(self, path: str):
        self.path = path
        if not os.path.isfile(path):
            raise MissingFile(path, "missing")
        if path.endswith(".gz"):
            self._handle = gzip.open(path, "rt", newline="")
        else:
            self._handle = open(path, newline="")
        self._reader = csv.reader(self._handle)
        header = next(self._reader, None)
        if not header:
            self.close()
            raise EmptyFile(path, "empty (no header)")
        self.header = [cell.strip() for cell in header]
        self._lowered = [cell.lower() for cell in self.header]

    @classmethod
    def of_run(cls, run_dir: str, name: str) -> "Table":
        """The trace NAME of a run directory (NAME.gz if that is what the run wrote)."""
        return cls(trace_path(run_dir, name))

    def close(self) -> None:
        self._handle.close()

    def __enter__(self) -> "Table":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def index(self, column: Column) -> Optional[int]:
        """Position of a column by any of its accepted names, or None."""
        for name in [column] if isinstance(column, str) else column:
            if name.lower() in self._lowered:
                return self._lowered.index(name.lower())
        return None

    def require(self, columns: Sequence[Column]) -> List[int]:
        """Positions of every column; MissingColumn (naming all absent ones) otherwise."""
        indexes = [self.index(c) for c in columns]
        missing = [c if isinstance(c, str) else c[0] for c, i in zip(columns, indexes) if i is None]
        if missing:
            self.close()
            raise MissingColumn(self.path, missing, self.header)
        return indexes

    def lines(self) -> Iterator[Tuple[int, List[str]]]:
        """(line number, cells) of every row that is not blank; closes the file at the end."""
        with self._handle:
            for row in self._reader:
                if row and any(cell.strip() for cell in row):
                    yield self._reader.line_num, row

    def cells(self, columns: Sequence[Column],
              optional: Sequence[Column] = ()) -> Iterator[Tuple[str, ...]]:
        """The trimmed text of the columns, required ones first, then the optional ones ("" where
        the file lacks the column). Rows too short for a required column (a run killed
        mid-write leaves a truncated last line) are left out."""
        indexes = self.require(columns)
        extra = [self.index(c) for c in optional]
        for _, row in self.lines():
            try:
                required = tuple(row[i].strip() for i in indexes)
            except IndexError:
                continue
            yield required + tuple(row[i].strip() if i is not None and i < len(row) else ""
                                   for i in extra)

    def records(self, columns: Sequence[str],
                types: Optional[Mapping[str, Converter]] = None) -> Iterator[Dict[str, object]]:
        """Typed rows: {column: types[column](text)} (text where no type is given; "" for a
        cell the row lacks). A value its converter rejects raises BadValue naming the line."""
        types = types or {}
        indexes = self.require(columns)
        for number, row in self.lines():
            record = {}
            for column, i in zip(columns, indexes):
                text = row[i].strip() if i < len(row) else ""
                convert = types.get(column)
                if convert is None:
                    record[column] = text
                    continue
                try:
                    record[column] = convert(text)
                except ValueError as err:
                    raise BadValue(self.path, number, column, text) from err
            yield record


def read_rows(run_dir: str, name: str, columns: Sequence[str],
              types: Optional[Mapping[str, Converter]] = None) -> List[Dict[str, object]]:
    """Every row of the trace NAME as a typed record (Table.records)."""
    return list(Table.of_run(run_dir, name).records(columns, types))


def read_table(path: str) -> Tuple[List[str], List[Dict[str, str]]]:
    """(header, rows as {column: text}) of a whole CSV file such as a sweep's sweep.csv."""
    with Table(path) as table:
        header = table.header
        rows = [dict(zip(header, row + [""] * (len(header) - len(row))))
                for _, row in table.lines()]
    return header, rows
