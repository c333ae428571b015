// Reads one result file with hyparquet and DuckDB, and its csv and json
// output (pbuckets show) with DuckDB; checks the row counts and that the
// float columns are numbers. Called by check.sh:
//   node readers.mjs FILE.parquet FILE.csv FILE.json ROWS
import { createRequire } from 'node:module'
import path from 'node:path'
const require = createRequire(path.join(process.env.NODE_PATH, 'x.js'))
const { asyncBufferFromFile, parquetReadObjects, parquetMetadataAsync } = await import(require.resolve('hyparquet'))
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'))

const [parquet, csv, json, rowsText] = process.argv.slice(2)
const rows = Number(rowsText)
let failed = false
const fail = (msg) => { console.log(`FAIL ${parquet}: ${msg}`); failed = true }

try {
  const file = await asyncBufferFromFile(parquet)
  const md = await parquetMetadataAsync(file)
  const objs = await parquetReadObjects({ file })
  if (objs.length !== rows) fail(`hyparquet read ${objs.length} rows, pbuckets ${rows}`)
  if (md.schema[0].repetition_type !== 'REQUIRED') fail(`root repetition ${md.schema[0].repetition_type}`)
} catch (e) { fail(`hyparquet: ${e}`) }

const db = await DuckDBInstance.create(':memory:')
const c = await db.connect()
let doubles = null
for (const [what, src] of [['parquet', `'${parquet}'`], ['csv', `read_csv('${csv}')`], ['json', `read_json('${json}')`]]) {
  try {
    if (rows === 0 && what !== 'parquet') continue // nothing to sniff types from
    const r = await c.runAndReadAll(`select * from ${src}`)
    if (r.currentRowCount !== rows) fail(`DuckDB ${what}: ${r.currentRowCount} rows, pbuckets ${rows}`)
    const types = Object.fromEntries(r.columnNames().map((n, i) => [n, String(r.columnTypes()[i])]))
    if (what === 'parquet') {
      doubles = Object.keys(types).filter((n) => types[n] === 'DOUBLE')
    } else {
      for (const n of doubles) {
        // an all-null column has no type to find
        const nulls = await c.runAndReadAll(`select count(${n}) from ${src}`)
        if (types[n] !== 'DOUBLE' && Number(nulls.getRows()[0][0]) > 0) fail(`DuckDB ${what}: column ${n} is ${types[n]}, not DOUBLE`)
      }
    }
  } catch (e) { fail(`DuckDB ${what}: ${e}`) }
}
if (!failed) console.log(`ok ${parquet}: ${rows} rows (hyparquet; DuckDB parquet, csv, json)`)
process.exit(failed ? 1 : 0)
