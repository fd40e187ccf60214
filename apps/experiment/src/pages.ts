/** Time to page: the first page-severity notification apps/pager recorded after a fault (results/pages/pages.jsonl). */

export interface PageFigure {
  /** ms from the fault to the first firing page, null when none came before `untilMs`. */
  toPageMs: number | null;
  alertname: string | null;
  /** ms from the restoration to the first notification where every page alert is resolved. */
  toResolvedMs: number | null;
}

interface Notification {
  received_ms: number;
  status: string;
  alerts: { alertname: string; status: string; severity?: string }[];
}

function parse(lines: readonly string[]): Notification[] {
  const out: Notification[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    try {
      const n = JSON.parse(line) as Notification;
      if (typeof n.received_ms === 'number' && Array.isArray(n.alerts)) out.push(n);
    } catch {
      // A line cut by a concurrent append is skipped, not fatal.
    }
  }
  return out.sort((a, b) => a.received_ms - b.received_ms);
}

export function pageFigure(
  lines: readonly string[],
  faultAtMs: number,
  restoredAtMs: number,
  untilMs: number,
): PageFigure {
  const notes = parse(lines).filter((n) => n.received_ms > faultAtMs && n.received_ms <= untilMs);
  const firing = notes.find((n) =>
    n.alerts.some((a) => a.severity === 'page' && a.status === 'firing'),
  );
  const resolved = firing
    ? notes.find(
        (n) =>
          n.received_ms > Math.max(restoredAtMs, firing.received_ms) &&
          n.status === 'resolved' &&
          n.alerts.filter((a) => a.severity === 'page').every((a) => a.status === 'resolved') &&
          n.alerts.some((a) => a.severity === 'page'),
      )
    : undefined;
  return {
    toPageMs: firing ? firing.received_ms - faultAtMs : null,
    alertname:
      firing?.alerts.find((a) => a.severity === 'page' && a.status === 'firing')?.alertname ?? null,
    toResolvedMs: resolved ? resolved.received_ms - restoredAtMs : null,
  };
}
