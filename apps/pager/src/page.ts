/** An Alertmanager webhook notification (payload version 4) and the page line the pager records for it. */

import { z } from 'zod';

const AlertSchema = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()).default({}),
  startsAt: z.string(),
  endsAt: z.string().default(''),
  fingerprint: z.string().default(''),
});

export const NotificationSchema = z.object({
  version: z.string(),
  status: z.enum(['firing', 'resolved']),
  receiver: z.string(),
  groupKey: z.string(),
  groupLabels: z.record(z.string(), z.string()).default({}),
  alerts: z.array(AlertSchema).min(1),
});
export type Notification = z.infer<typeof NotificationSchema>;

/** One line of pages.jsonl. `received_ms` is the pager's clock: "time to page" is measured against it. */
export interface PageLine {
  received_at: string;
  received_ms: number;
  status: 'firing' | 'resolved';
  receiver: string;
  group_key: string;
  alerts: {
    alertname: string;
    status: 'firing' | 'resolved';
    severity: string | null;
    labels: Record<string, string>;
    summary: string | null;
    starts_at: string;
    ends_at: string;
    fingerprint: string;
  }[];
}

export type ParsedNotification = { ok: true; line: PageLine } | { ok: false; detail: string };

/** Validates a webhook body; never throws (a bad body is answered 400 and logged, not recorded). */
export function pageLine(body: unknown, receivedMs: number): ParsedNotification {
  const parsed = NotificationSchema.safeParse(body);
  if (!parsed.success)
    return {
      ok: false,
      detail: parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`)
        .join('; '),
    };
  const n = parsed.data;
  return {
    ok: true,
    line: {
      received_at: new Date(receivedMs).toISOString(),
      received_ms: receivedMs,
      status: n.status,
      receiver: n.receiver,
      group_key: n.groupKey,
      alerts: n.alerts.map((a) => ({
        alertname: a.labels['alertname'] ?? '(none)',
        status: a.status,
        severity: a.labels['severity'] ?? null,
        labels: a.labels,
        summary: a.annotations['summary'] ?? null,
        starts_at: a.startsAt,
        ends_at: a.endsAt,
        fingerprint: a.fingerprint,
      })),
    },
  };
}
