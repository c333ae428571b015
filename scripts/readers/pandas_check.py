"""Reads one result file's csv and json output (pbuckets show) with pandas,
and the Parquet file itself when pandas has a Parquet engine; checks the row
counts and that the float columns are numbers. Called by check.sh:
    python3 pandas_check.py FILE.parquet FILE.csv FILE.json ROWS"""
import sys

import pandas as pd

parquet, csv, js, rows = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
bad = []
frames = {}
if rows > 0:
    frames["csv"] = pd.read_csv(csv)
    frames["json"] = pd.read_json(js, orient="records", dtype=False)
try:
    frames["parquet"] = pd.read_parquet(parquet)
except ImportError:
    pass  # no pyarrow or fastparquet
notes = []
numeric = ("upper", "lower", "_eps", "eps", "delta", "alpha", "factor", "seconds", "mass", "accuracy", "accuracy_reached", "bracket")
for what, df in frames.items():
    if len(df) != rows:
        bad.append(f"pandas {what}: {len(df)} rows, pbuckets {rows}")
    for col in df.columns:
        if df[col].dtype != object or not col.endswith(numeric):
            continue
        # pandas's CSV parser leaves 1e999 (+Inf) as text: astype(float)
        # must then read the column as numbers.
        try:
            df[col].astype(float)
            notes.append(f"{what} {col} needs astype(float)")
        except ValueError as e:
            bad.append(f"pandas {what}: column {col} is not numeric: {e}")
for b in bad:
    print(f"FAIL {parquet}: {b}")
if not bad:
    extra = f"; {', '.join(notes)}" if notes else ""
    print(f"ok {parquet}: {rows} rows (pandas {pd.__version__}: {', '.join(frames) or 'nothing to read'}{extra})")
sys.exit(1 if bad else 0)
