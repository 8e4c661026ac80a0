import json

import pytest

import tessel
from conftest import H100, ROOT

SHIPPED = ROOT / "schedules" / "tuned" / "matmul_relu_mma-h100.json"


def test_shipped_database():
    db = tessel.Database.open(SHIPPED)
    key = tessel.matmul_relu_key(4096, 4096, 4096, "f16")
    assert db.devices(key) == [H100]
    best = db.best(key, H100)
    assert best.ok and best.selected
    # A selected record wins even over a faster single measurement.
    assert best.median_ms >= min(r.median_ms for r in db.matching(key, H100)
                                 if r.ok)
    assert db.best(key, "NVIDIA H200 (sm_90)") is None


def test_best_without_a_mark_is_the_fastest_correct(tmp_path):
    def rec(knobs, status, ms, selected=False):
        return {"workload": "w", "device": "d", "schedule_hash": "0x1",
                "compiler": "c", "knobs": knobs, "status": status,
                "median_ms": ms, "selected": selected}
    path = tmp_path / "db.json"
    records = [rec({"a": "1"}, "ok", 2.0), rec({"a": "2"}, "wrong-output", 1.0),
               rec({"a": "3"}, "ok", 1.5), rec({"a": "4"}, "timeout", 0.0)]
    path.write_text(json.dumps({"format": "tessel-tuning-db", "version": 1,
                                "records": records}))
    assert tessel.Database.open(path).best("w", "d").knobs == {"a": "3"}
    records[0]["selected"] = True
    path.write_text(json.dumps({"format": "tessel-tuning-db", "version": 1,
                                "records": records}))
    assert tessel.Database.open(path).best("w", "d").knobs == {"a": "1"}


@pytest.mark.parametrize("text,message", [
    ("{", "not valid JSON"),
    ('{"format": "other", "version": 1, "records": []}', "not a Tessel tuning database"),
    ('{"format": "tessel-tuning-db", "version": 7, "records": []}', "version 7"),
    ('{"format": "tessel-tuning-db", "version": 1, "records": [{"workload": "w"}]}',
     "record 0 lacks device"),
])
def test_bad_databases(tmp_path, text, message):
    path = tmp_path / "db.json"
    path.write_text(text)
    with pytest.raises(tessel.TesselError, match=message):
        tessel.Database.open(path)


def test_missing_database(tmp_path):
    with pytest.raises(tessel.TesselError, match="cannot read"):
        tessel.Database.open(tmp_path / "none.json")


def test_sqlite_database_reads_like_its_json_export(tmp_path):
    # The tuner writes SQLite; tessel-db imports and exports the reviewable
    # JSON. Both formats read to the same records.
    import subprocess
    from tessel import install
    db = tmp_path / "tuning.db"
    subprocess.run([install.tool("tessel-db"), "import", SHIPPED, "-o", db],
                   check=True, capture_output=True)
    from_sqlite = tessel.Database.open(db)
    from_json = tessel.Database.open(SHIPPED)
    assert len(from_sqlite.records) == len(from_json.records) > 0
    assert from_sqlite.records == from_json.records
    key = tessel.matmul_relu_key(4096, 4096, 4096, "f16")
    assert from_sqlite.best(key, H100) == from_json.best(key, H100)


def test_bad_sqlite_databases(tmp_path):
    import sqlite3
    foreign = tmp_path / "foreign.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE records(x)")
    con.commit()
    con.close()
    with pytest.raises(tessel.TesselError, match="another application"):
        tessel.Database.open(foreign)
    truncated = tmp_path / "truncated.db"
    truncated.write_bytes(foreign.read_bytes()[:200])
    with pytest.raises(tessel.TesselError, match="not a Tessel tuning database"):
        tessel.Database.open(truncated)


def test_empty_file_is_an_empty_database(tmp_path):
    # SQLite creates the file before it writes it: a reader may see it so.
    path = tmp_path / "tuning.db"
    path.write_bytes(b"")
    assert tessel.Database.open(path).records == []
