/** Unique names for what one test creates (topics, groups, tables, jobs), so that runs on the shared stack never meet. */

import { randomBytes } from 'node:crypto';

/** `<label>-<time base36>-<6 hex>`: unique, sortable by creation, safe in topic and group names. */
export function uniqueId(label: string): string {
  return `${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}
