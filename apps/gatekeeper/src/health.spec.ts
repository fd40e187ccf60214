import { HealthTracker } from './health';

describe('HealthTracker', () => {
  function tracker(): { health: HealthTracker; clock: { now: number } } {
    const clock = { now: 1000 };
    return {
      health: new HealthTracker({ instanceId: 'i', transactionalId: 't' }, () => clock.now),
      clock,
    };
  }

  it('starts healthy, with nothing in flight', () => {
    const { health } = tracker();
    expect(health.check()).toEqual({
      status: 200,
      body: {
        phase: 'starting',
        instanceId: 'i',
        transactionalId: 't',
        startedAt: 1000,
        lastCommitAt: null,
        inFlightSince: null,
        commits: 0,
        aborts: 0,
        loopRestarts: 0,
      },
    });
    expect(health.inFlightMs()).toBeNull();
  });

  it('times the batch in flight until it is committed, aborted or lost with a failed loop', () => {
    const { health, clock } = tracker();
    health.loopStarted();
    health.batchCollected();
    clock.now = 1500;
    expect(health.inFlightMs()).toBe(500);
    health.committed();
    expect(health.inFlightMs()).toBeNull();
    health.batchCollected();
    health.aborted();
    expect(health.inFlightMs()).toBeNull();
    health.batchCollected();
    health.loopFailed();
    expect(health.inFlightMs()).toBeNull();
    expect(health.snapshot()).toMatchObject({
      phase: 'running',
      commits: 1,
      aborts: 1,
      loopRestarts: 1,
      lastCommitAt: 1500,
    });
    expect(health.commits).toBe(1);
  });

  it('is unhealthy once stuck, stopped, fenced or failed', () => {
    const phases: [string, (h: HealthTracker) => void][] = [
      ['stuck', (h) => h.stuck()],
      ['stopped', (h) => h.ended('stopped')],
      ['fenced', (h) => h.ended('fenced')],
      ['failed', (h) => h.failed()],
    ];
    for (const [phase, to] of phases) {
      const { health } = tracker();
      to(health);
      expect(health.check()).toMatchObject({ status: 503, body: { phase } });
    }
  });

  it('hands out copies, never its own record', () => {
    const { health } = tracker();
    health.snapshot().commits = 99;
    expect(health.commits).toBe(0);
  });
});
