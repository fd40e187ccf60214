import { ERRORS, FakeClock, silentLogger } from '../test/fake-kafka';
import { RD_CODES } from './errors';
import {
  Abandon,
  FatalKafkaError,
  Fenced,
  StoppedWhileRetrying,
  withRetry,
  type RetryContext,
} from './tx-retry';

function context(over: Partial<RetryContext> = {}): RetryContext & { clock: FakeClock } {
  return {
    clock: new FakeClock(),
    logger: silentLogger,
    stopped: () => false,
    canReplace: false,
    ...over,
  } as RetryContext & {
    clock: FakeClock;
  };
}

/** An op that throws the given errors in turn, then succeeds; counts its calls. */
function failing(...errors: unknown[]): { op: () => Promise<void>; calls: () => number } {
  let calls = 0;
  return {
    op: () => (calls++ < errors.length ? Promise.reject(errors[calls - 1]) : Promise.resolve()),
    calls: () => calls,
  };
}

describe('withRetry', () => {
  it('retries a retriable error until the call succeeds', async () => {
    const f = failing(ERRORS.retriable, ERRORS.retriable);
    await withRetry(context(), 'begin', f.op, null);
    expect(f.calls()).toBe(3);
  });

  it('classifies fencing, fatal and abortable errors instead of retrying them', async () => {
    await expect(
      withRetry(context(), 'commit', failing(ERRORS.fenced).op, 1000),
    ).rejects.toBeInstanceOf(Fenced);
    await expect(
      withRetry(context(), 'commit', failing(ERRORS.fatal).op, 1000),
    ).rejects.toBeInstanceOf(FatalKafkaError);
    await expect(withRetry(context(), 'commit', failing(ERRORS.abortable).op, 1000)).rejects.toBe(
      ERRORS.abortable,
    );
  });

  it('gives up a budgeted call once its budget is spent', async () => {
    const f = failing(...Array<unknown>(100).fill(ERRORS.retriable));
    await expect(withRetry(context(), 'sendOffsets', f.op, 1000)).rejects.toBe(ERRORS.retriable);
    expect(f.calls()).toBeLessThan(100);
  });

  it('abandons a replaceable producer whose coordinator does not answer, or whose abort is refused', async () => {
    const transport = {
      code: RD_CODES.ERR__TRANSPORT,
      message: 'Local: Broker transport failure',
      isRetriable: true,
    };
    const badState = {
      code: RD_CODES.ERR__STATE,
      message: 'Local: Erroneous state',
      isRetriable: true,
    };
    const ctx = context({ canReplace: true });
    await expect(withRetry(ctx, 'commit', failing(transport).op, 1000)).rejects.toBeInstanceOf(
      Abandon,
    );
    await expect(withRetry(ctx, 'abort', failing(badState).op, null)).rejects.toBeInstanceOf(
      Abandon,
    );
    // begin is never abandoned (nothing is in flight yet), and without a replacement nothing is.
    await expect(withRetry(ctx, 'begin', failing(transport).op, null)).resolves.toBeUndefined();
    await expect(
      withRetry(context(), 'commit', failing(transport).op, 1000),
    ).resolves.toBeUndefined();
  });

  it('stops an unbounded retry when the caller stops, never a budgeted one', async () => {
    const ctx = context({ stopped: () => true });
    await expect(
      withRetry(ctx, 'abort', failing(ERRORS.retriable).op, null),
    ).rejects.toBeInstanceOf(StoppedWhileRetrying);
    await expect(
      withRetry(ctx, 'commit', failing(ERRORS.retriable).op, 1000),
    ).resolves.toBeUndefined();
  });
});
