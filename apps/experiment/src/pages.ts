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

/** One pager line, or null for a blank, cut (a concurrent append) or foreign one: skipped, not fatal. */
function parseLine(line: string): Notification | null {
  if (!line.trim()) return null;
  try {
    const n = JSON.parse(line) as Notification;
    return typeof n.received_ms === 'number' && Array.isArray(n.alerts) ? n : null;
  } catch {
    return null;
  }
}

function parse(lines: readonly string[]): Notification[] {
  const out: Notification[] = [];
  for (const line of lines) {
    const n = parseLine(line);
    if (n) out.push(n);
  }
  return out.sort((a, b) => a.received_ms - b.received_ms);
}

/**
 * The pager's lines received in (fromMs, untilMs], unchanged: what a run keeps beside its figures, since
 * the pager's own file is the live stack's output (ignored by git) and outlives no machine.
 */
export function pagesWithin(lines: readonly string[], fromMs: number, untilMs: number): string[] {
  return lines.filter((line) => {
    const n = parseLine(line);
    return n !== null && n.received_ms > fromMs && n.received_ms <= untilMs;
  });
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
