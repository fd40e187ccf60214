/** The lateness rule of DESIGN.md: a pure function of the event and its ingest time, so recovery cannot change it. */

import { DEFAULT_LATENESS_MS } from './types';

export type Timeliness = 'on_time' | 'late';

export function timeliness(
  eventTime: number,
  ingestTime: number,
  latenessMs = DEFAULT_LATENESS_MS,
): Timeliness {
  return eventTime >= ingestTime - latenessMs ? 'on_time' : 'late';
}
