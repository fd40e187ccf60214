/** Integration-test helpers: the server URL, a silent logger, unique names. */
import { randomBytes } from 'node:crypto';

export const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';

const noop = (): void => undefined;
export const quietLogger = { debug: noop, info: noop, warn: noop, error: noop };

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now()}_${randomBytes(4).toString('hex')}`;
}
