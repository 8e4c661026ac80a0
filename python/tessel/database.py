"""Reading Tessel's tuning databases: the SQLite files --tessel-tune writes
and the JSON files `tessel-db export` writes (schedules/tuned/).

Both formats are documented in docs/tuning.md. `Database.best` picks the record
tessel-opt's `db=` option applies: the one the tuner marked "selected", else
the fastest correct one.
"""

import dataclasses
import json
import pathlib
import sqlite3

from .errors import TesselError

FORMAT = "tessel-tuning-db"
VERSION = 1
# A SQLite tuning database: PRAGMA application_id ("TSDB") and user_version.
SQLITE_APPLICATION_ID = 0x54534442
SQLITE_VERSION = 1
SQLITE_HEADER = b"SQLite format 3\x00"


@dataclasses.dataclass(frozen=True)
class Record:
    workload: str       # "matmul_relu 4096x4096x4096 f16->f16 acc=f32"
    device: str         # "NVIDIA H100 80GB HBM3 (sm_90)"
    schedule_hash: str  # The schedule's content key.
    compiler: str       # "tessel 0.1.0, LLVM 22.1.8"
    knobs: dict         # Name -> value (text).
    status: str         # "ok", "wrong-output", "compile-error", ...
    median_ms: float
    tflops: float
    selected: bool      # The tuner's winner for its key.
    raw: dict = dataclasses.field(repr=False, compare=False)

    @property
    def ok(self):
        return self.status == "ok"


_REQUIRED = ("workload", "device", "schedule_hash", "compiler", "knobs",
             "status")


class Database:
    """The records of one tuning database file."""

    def __init__(self, records, path=None):
        self.records = list(records)
        self.path = path

    @classmethod
    def open(cls, path):
        path = pathlib.Path(path)
        try:
            with open(path, "rb") as f:
                header = f.read(len(SQLITE_HEADER))
        except OSError as e:
            raise TesselError(f"cannot read tuning database '{path}': "
                              f"{e.strerror}") from None
        if header == SQLITE_HEADER:
            return cls(cls._parse(path, cls._sqlite_records(path)), path)
        if header == b"":
            # A SQLite database a tuner has just created, not yet written.
            return cls([], path)
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise TesselError(f"cannot read tuning database '{path}': "
                              f"{getattr(e, 'strerror', None) or e}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise TesselError(f"{path}:{e.lineno}:{e.colno}: tuning database "
                              f"is not valid JSON: {e.msg}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise TesselError(f"{path}: not a Tessel tuning database "
                              f"(expected \"format\": \"{FORMAT}\")")
        if data.get("version") != VERSION:
            raise TesselError(f"{path}: tuning database version "
                              f"{data.get('version')!r}; this Tessel reads "
                              f"version {VERSION}")
        records = data.get("records")
        if not isinstance(records, list):
            raise TesselError(f"{path}: \"records\" must be a list")
        return cls(cls._parse(path, records), path)

    @staticmethod
    def _sqlite_records(path):
        """The records of a SQLite tuning database, as JSON objects."""
        try:
            # Read-only: Python never writes a tuning database.
            con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            try:
                app = con.execute("PRAGMA application_id").fetchone()[0]
                version = con.execute("PRAGMA user_version").fetchone()[0]
                if app != SQLITE_APPLICATION_ID:
                    raise TesselError(f"{path}: not a Tessel tuning database "
                                      "(a SQLite file of another application)")
                if version != SQLITE_VERSION:
                    raise TesselError(f"{path}: tuning database version "
                                      f"{version}; this Tessel reads version "
                                      f"{SQLITE_VERSION}")
                rows = con.execute(
                    "SELECT id, record FROM records ORDER BY id").fetchall()
            finally:
                con.close()
        except sqlite3.Error as e:
            raise TesselError(f"{path}: not a Tessel tuning database: {e}") \
                from None
        records = []
        for row_id, text in rows:
            try:
                records.append(json.loads(text))
            except (TypeError, json.JSONDecodeError) as e:
                raise TesselError(f"{path}: corrupt tuning database: record "
                                  f"{row_id}: {e}") from None
        return records

    @staticmethod
    def _parse(path, records):
        parsed = []
        for i, r in enumerate(records):
            missing = [f for f in _REQUIRED if f not in r] \
                if isinstance(r, dict) else list(_REQUIRED)
            if missing:
                raise TesselError(f"{path}: record {i} lacks "
                                  f"{', '.join(missing)}")
            parsed.append(Record(
                workload=r["workload"], device=r["device"],
                schedule_hash=r["schedule_hash"], compiler=r["compiler"],
                knobs=dict(r["knobs"]), status=r["status"],
                median_ms=float(r.get("median_ms", 0.0)),
                tflops=float(r.get("tflops", 0.0)),
                selected=bool(r.get("selected", False)), raw=r))
        return parsed

    def matching(self, workload, device=None, schedule_hash=None):
        """Records of `workload` (on `device`, for `schedule_hash`)."""
        return [r for r in self.records
                if r.workload == workload
                and (device is None or r.device == device)
                and (schedule_hash is None or r.schedule_hash == schedule_hash)]

    def devices(self, workload):
        """Devices with records of `workload`, sorted."""
        return sorted({r.device for r in self.matching(workload)})

    def best(self, workload, device, schedule_hash=None):
        """The record tessel-opt applies: the correct one marked selected,
        else the correct one with the lowest median; None without one."""
        best = None
        for r in self.matching(workload, device, schedule_hash):
            if not r.ok:
                continue
            if r.selected:
                return r
            if best is None or r.median_ms < best.median_ms:
                best = r
        return best
