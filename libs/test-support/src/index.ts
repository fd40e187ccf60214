/** Public entry point of @clickstream/test-support: what integration tests and benches share about the local stack. */

export { repoRoot, localBootstrap } from './config';
