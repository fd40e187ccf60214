/** Public entry point of @clickstream/contracts: the event contract, its wire encoding, and the ledger, manifest and report schemas. */

export {
  EVENT_TYPES,
  DEVICES,
  CURRENCIES,
  SCHEMA_VERSIONS,
  CANONICAL_VERSION,
  MAX_EVENT_BYTES,
  MAX_EVENT_TIME_SKEW_MS,
  DEFAULT_LATENESS_MS,
} from './event/types';
export type { EventType, Device, Currency, SchemaVersion, ClickEvent } from './event/types';
export { timeliness } from './event/lateness';
export type { Timeliness } from './event/lateness';
export {
  encodeEvent,
  decodeEvent,
  readIngestTime,
  fingerprintOf,
  schemaOf,
  SINGLE_OBJECT_MAGIC,
  SINGLE_OBJECT_HEADER_BYTES,
} from './event/wire';
export type { DecodeResult, IngestTimeResult } from './event/wire';
export { validateEvent } from './event/validate';
export type { ValidationResult } from './event/validate';
export { REJECT_REASONS, isRejectReason } from './reasons';
export type { RejectReason } from './reasons';
export { HEADERS, parseSeqHeader, formatSeqHeader } from './headers';
export type { HeaderName } from './headers';
export { TOPICS } from './topics';
export type { TopicName } from './topics';
export { LedgerRowSchema, FAULT_KINDS, DELIVERY_STATUSES } from './ledger/ledger';
export type { LedgerRow, FaultKind, DeliveryStatus } from './ledger/ledger';
export { RunManifestSchema, FaultRatiosSchema } from './ledger/manifest';
export type { RunManifest, FaultRatios } from './ledger/manifest';
export {
  LAYERS,
  VERDICTS,
  EvidenceSchema,
  LayerReportSchema,
  ReconciliationReportSchema,
} from './report/report';
export type {
  LayerName,
  Verdict,
  Evidence,
  LayerReport,
  ReconciliationReport,
} from './report/report';
export {
  parseLedgerRow,
  parseLedgerLine,
  parseRunManifest,
  parseReport,
  formatZodError,
} from './parse';
export type { ParseResult } from './parse';
export {
  WINDOW_SIZE_MS,
  SESSION_GAP_MS,
  PROBE_RUN_PREFIX,
  isProbeRun,
  windowStartOf,
  windowKey,
  sessionKey,
  WindowAggregateSchema,
  SessionAggregateSchema,
} from './aggregate/types';
export type { WindowAggregate, SessionAggregate } from './aggregate/types';
export {
  encodeWindowAggregate,
  decodeWindowAggregate,
  encodeSessionAggregate,
  decodeSessionAggregate,
  windowAggregateFingerprint,
  sessionAggregateFingerprint,
  windowAggregateSchema,
  sessionAggregateSchema,
} from './aggregate/wire';
export type { AggregateDecodeResult } from './aggregate/wire';
export { FRAMES_CONTENT_TYPE, encodeFrames, decodeFrames } from './collector/frames';
export type { Frame, FramesResult } from './collector/frames';
export { splitSingleObjects, readSingleObjectLabels } from './collector/split';
export type { SingleObjectSplit, SingleObjectLabels } from './collector/split';
