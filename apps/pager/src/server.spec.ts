import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { startPager, type Pager } from './server';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function notification(status: 'firing' | 'resolved', alertname = 'ProbeStalled') {
  return {
    version: '4',
    status,
    receiver: 'page-recorder',
    groupKey: '{}:{alertname="ProbeStalled"}',
    groupLabels: { alertname },
    alerts: [
      {
        status,
        labels: { alertname, severity: 'page', layer: 'clean' },
        annotations: { summary: 'no probe event for 40 s' },
        startsAt: '2026-11-30T23:00:00Z',
        endsAt: status === 'resolved' ? '2026-11-30T23:01:00Z' : '0001-01-01T00:00:00Z',
        fingerprint: 'abc',
      },
    ],
  };
}

describe('pager (loopback, no stack)', () => {
  let dir: string;
  let pager: Pager;
  let now = 1_800_000_000_000;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pager-'));
    pager = await startPager({
      host: '127.0.0.1',
      port: 0,
      pagesDir: dir,
      logger: quiet,
      metrics: { contentType: 'text/plain', metrics: () => Promise.resolve('x 1\n') },
      health: () => ({ status: 200, body: {} }),
      clock: () => now++,
    });
  });
  afterAll(async () => {
    await pager.close();
    await rm(dir, { recursive: true, force: true });
  });
  const post = (body: string) =>
    fetch(`http://127.0.0.1:${pager.port}/alerts`, { method: 'POST', body });

  it('appends every notification, firing and resolved, as one JSON line', async () => {
    expect((await post(JSON.stringify(notification('firing')))).status).toBe(200);
    expect((await post(JSON.stringify(notification('resolved')))).status).toBe(200);
    const lines = (await readFile(pager.pagesFile, 'utf8')).trim().split('\n');
    expect(
      lines.map(
        (l) =>
          JSON.parse(l) as { status: string; alerts: { alertname: string; severity: string }[] },
      ),
    ).toEqual([
      expect.objectContaining({
        status: 'firing',
        alerts: [expect.objectContaining({ alertname: 'ProbeStalled', severity: 'page' })],
      }),
      expect.objectContaining({ status: 'resolved' }),
    ]);
  });

  it('answers 400 to a body that is not a notification, and records nothing for it', async () => {
    const before = await readFile(pager.pagesFile, 'utf8');
    expect((await post('not json')).status).toBe(400);
    expect((await post(JSON.stringify({ status: 'firing' }))).status).toBe(400);
    expect(await readFile(pager.pagesFile, 'utf8')).toBe(before);
  });

  it('serves /metrics and /healthz like every app', async () => {
    expect(await (await fetch(`http://127.0.0.1:${pager.port}/metrics`)).text()).toBe('x 1\n');
    expect((await fetch(`http://127.0.0.1:${pager.port}/healthz`)).status).toBe(200);
  });
});
