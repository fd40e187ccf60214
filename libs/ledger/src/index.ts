/** Public entry point of @clickstream/ledger: the Arrow ledger of a generator run and its manifest, written and read the same way by everyone. */

export { LedgerWriter, writeLedger } from './writer';
export type { LedgerWriterOptions, LedgerWriteResult } from './writer';
export { readLedger, readLedgerSync, iterateLedger, iterateLedgerBatches } from './reader';
export type { LedgerReadOptions } from './reader';
export { writeManifest, readManifest } from './manifest';
export { runPaths, LEDGER_FILE, MANIFEST_FILE, RUN_ID_PATTERN } from './paths';
export type { RunPaths } from './paths';
export { LEDGER_COLUMNS, LEDGER_SCHEMA } from './columns';
export { iterateLedgerColumns, LedgerColumns, NULL_CODE, UNKNOWN_CODE } from './columnar';
export type { StringColumn, NumberColumn, CodeColumn, ColumnarReadOptions } from './columnar';
