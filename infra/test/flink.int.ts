/** The Flink session cluster accepts a SQL job, runs it, and cancels it on request (REST API). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { sleep } from './support/kafka';
import { ensureStackUp, port, stack, uniqueName } from './support/stack';

interface JobOverview {
  jid: string;
  name: string;
  state: string;
}

const rest = (p: string): string => `http://127.0.0.1:${port('FLINK_REST_PORT')}${p}`;

async function jobs(): Promise<JobOverview[]> {
  const res = await fetch(rest('/jobs/overview'));
  if (!res.ok) throw new Error(`GET /jobs/overview: ${res.status}`);
  return ((await res.json()) as { jobs: JobOverview[] }).jobs;
}

async function waitForJob(
  name: string,
  states: string[],
  timeoutMs = 120_000,
): Promise<JobOverview | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await jobs()).find((j) => j.name === name);
    if ((job !== undefined && states.includes(job.state)) || Date.now() > deadline) return job;
    await sleep(500);
  }
}

describe('Flink session cluster', () => {
  const name = uniqueName('infra-flink');
  const dir = mkdtempSync(path.join(tmpdir(), 'infra-flink-'));
  let jid: string | null = null;

  beforeAll(ensureStackUp);
  afterAll(async () => {
    if (jid !== null) await fetch(rest(`/jobs/${jid}?mode=cancel`), { method: 'PATCH' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs a submitted SQL job until it is cancelled', async () => {
    const sql = path.join(dir, 'job.sql');
    writeFileSync(
      sql,
      [
        `SET 'pipeline.name' = '${name}';`,
        `CREATE TEMPORARY TABLE src (n BIGINT) WITH ('connector' = 'datagen', 'rows-per-second' = '5');`,
        `CREATE TEMPORARY TABLE sink (n BIGINT) WITH ('connector' = 'blackhole');`,
        `INSERT INTO sink SELECT n FROM src;`,
      ].join('\n'),
    );
    await stack('sql', '-f', sql);

    const running = await waitForJob(name, ['RUNNING', 'FAILED', 'FINISHED']);
    jid = running?.jid ?? null;
    expect(running?.state).toBe('RUNNING');

    const cancel = await fetch(rest(`/jobs/${running?.jid ?? 'none'}?mode=cancel`), {
      method: 'PATCH',
    });
    expect(cancel.status).toBe(202);
    expect((await waitForJob(name, ['CANCELED', 'FAILED']))?.state).toBe('CANCELED');
    jid = null;
  });
});
