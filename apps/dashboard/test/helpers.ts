/** Integration-test helpers: where the stack is, a silent logger, unique names, the dashboard user. */
import { randomBytes } from 'node:crypto';

export const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:18123';
export const PROMETHEUS_URL = process.env.PROMETHEUS_URL ?? 'http://127.0.0.1:9090';
/** The read-only user of infra/clickhouse/config/users.xml. */
export const DASHBOARD_USER = { username: 'dashboard', password: 'dashboard-local' };

const noop = (): void => undefined;
export const quietLogger = { debug: noop, info: noop, warn: noop, error: noop };

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now()}_${randomBytes(4).toString('hex')}`;
}
