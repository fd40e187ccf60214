import { pageFigure, pagesWithin } from './pages';

const note = (received_ms: number, status: string, alerts: [string, string, string?][]) =>
  JSON.stringify({
    received_ms,
    status,
    alerts: alerts.map(([alertname, s, severity]) => ({ alertname, status: s, severity })),
  });

describe('pageFigure', () => {
  it('is empty without notifications', () => {
    expect(pageFigure([], 1000, 2000, 9000)).toEqual({
      toPageMs: null,
      alertname: null,
      toResolvedMs: null,
    });
  });
  it('takes the first firing page after the fault and the first all-resolved one after the restoration', () => {
    const lines = [
      note(500, 'firing', [['Old', 'firing', 'page']]),
      note(1500, 'firing', [['Ticket', 'firing', 'ticket']]),
      note(3000, 'firing', [['ProbeStalled', 'firing', 'page']]),
      'not json',
      note(4000, 'resolved', [['ProbeStalled', 'resolved', 'page']]),
    ];
    expect(pageFigure(lines, 1000, 3500, 9000)).toEqual({
      toPageMs: 2000,
      alertname: 'ProbeStalled',
      toResolvedMs: 500,
    });
  });
  it('ignores pages after the end of the run', () => {
    expect(
      pageFigure([note(3000, 'firing', [['A', 'firing', 'page']])], 1000, 2000, 2500).toPageMs,
    ).toBeNull();
  });
});

describe('pagesWithin', () => {
  it('keeps the lines received in (from, until], unchanged, and nothing from an empty file', () => {
    const lines = [
      note(1000, 'firing', [['Before', 'firing', 'page']]),
      note(1001, 'firing', [['First', 'firing', 'page']]),
      'not json',
      '',
      note(5000, 'resolved', [['Last', 'resolved', 'page']]),
      note(5001, 'firing', [['After', 'firing', 'page']]),
    ];
    expect(pagesWithin(lines, 1000, 5000)).toEqual([lines[1], lines[4]]);
    expect(pagesWithin([], 0, 9000)).toEqual([]);
  });
});
