/** Topic names of the platform (DESIGN.md, Flow). */

export const TOPICS = {
  raw: 'clickstream.raw',
  valid: 'events.valid',
  dlq: 'events.dlq',
  clean: 'events.clean',
  late: 'events.late',
  windows: 'agg.windows',
  sessions: 'agg.sessions',
} as const;

export type TopicName = (typeof TOPICS)[keyof typeof TOPICS];
