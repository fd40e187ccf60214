import { createOutput, faultSummary, progressLine, resolveFormat } from './terminal';

const F = {
  sent: 12739,
  total: 30000,
  target_rate: 500,
  achieved_rate: 498,
  lag_ms: 3,
  in_flight: 27,
  faults: {
    none: 11000,
    duplicate: 250,
    out_of_order: 600,
    late: 100,
    poison_bad_magic: 20,
    poison_truncated: 30,
  },
};

function capture(isTTY: boolean): { write(s: string): void; isTTY: boolean; text: string } {
  return {
    isTTY,
    text: '',
    write(s: string) {
      this.text += s;
    },
  };
}

describe('what the generator shows a person', () => {
  it('sums the fault kinds short, poison together, and says when there are none', () => {
    expect(faultSummary(F.faults)).toBe('dup 250 · ooo 600 · late 100 · poison 50');
    expect(faultSummary({ none: 5, duplicate: 0 })).toBe('none yet');
  });

  it('writes one progress line with sent, total, rate, lag and faults', () => {
    expect(progressLine(F, false)).toBe(
      'sent 12,739 / ~30,000  498/s (target 500)  lag 3 ms  faults: dup 250 · ooo 600 · late 100 · poison 50',
    );
    expect(progressLine({ ...F, total: null, lag_ms: 2500 }, true)).toMatch(
      /^sent 12,739  .* lag 2,500 ms BEHIND/,
    );
  });

  it('is pretty on a terminal and plain elsewhere, unless a format is asked for', () => {
    expect(resolveFormat('auto', { write: () => 0, isTTY: true })).toBe('pretty');
    expect(resolveFormat('auto', { write: () => 0 })).toBe('plain');
    expect(resolveFormat('json', { write: () => 0, isTTY: true })).toBe('json');
  });

  it('on a terminal, updates the progress line in place and keeps it below log lines', () => {
    const s = capture(true);
    const out = createOutput('auto', 'info', s);
    out.progress?.(F, false);
    out.progress?.({ ...F, sent: 13000 }, false);
    out.logger.warn('a broker went away');
    out.done();
    const CLEAR = '\r\x1b[2K';
    expect(s.text.startsWith(`${CLEAR}sent 12,739`)).toBe(true);
    expect(s.text).toContain(`${CLEAR}sent 13,000`);
    // The log line clears the progress line, then draws it again after itself.
    expect(s.text).toMatch(/\r\x1b\[2K.*a broker went away.*\n.*sent 13,000/s);
    expect(s.text.endsWith('\n')).toBe(true);
    expect(out.progressEveryMs).toBeLessThanOrEqual(1000);
  });

  it('elsewhere, writes plain lines (no escape codes, no JSON) at a slow pace', () => {
    const s = capture(false);
    const out = createOutput('auto', 'info', s);
    out.progress?.(F, false);
    out.logger.info('run starting');
    expect(s.text).toContain('progress: sent 12,739 / ~30,000');
    expect(s.text).toMatch(/INFO.*run starting/);
    expect(s.text).not.toMatch(/\x1b|^\{/m);
    expect(out.progressEveryMs).toBeGreaterThanOrEqual(10_000);
  });
});
