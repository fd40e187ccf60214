/** Public entry point of @clickstream/test-support: what integration tests and benches share about the local stack. Never imported by production code (lint enforces it). */

export { repoRoot, localBootstrap, localPort } from './config';
export { sleep, waitFor, waitForValue, retry } from './wait';
export { uniqueId } from './names';
export { testLogger, clusterOptions, produceAcked, type AckingProducer } from './kafka';
export { exactlyOnce, exactlyOnceCounts, isExact, type OnceEvidence } from './exactly-once';
export { samplePageView, type SamplePageView } from './sample-event';
export { NodeChild, killAllChildren, type Exit, type NodeChildOptions } from './child';
export { readRunWithPyiceberg, type ForeignIcebergRead, type IcebergRow } from './pyiceberg';
