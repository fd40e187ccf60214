import { classifyTxError, describeError } from './errors';

describe('classifyTxError', () => {
  it.each([
    [
      {
        code: -144,
        message: 'Local: This instance has been fenced by a newer instance',
        isFatal: true,
      },
      'fenced',
    ],
    [{ code: 90, message: 'Broker: Producer fenced' }, 'fenced'],
    [
      {
        code: -150,
        message:
          'Fatal error: Broker: Producer attempted an operation with an old epoch ... fenced',
        isFatal: true,
      },
      'fenced',
    ],
    [
      {
        code: 47,
        message: 'Broker: Producer attempted an operation with an old epoch',
        isFatal: true,
      },
      'fenced',
    ],
    [{ code: 47, message: 'old epoch' }, 'fenced'],
    [{ code: -150, message: 'Local: Fatal error', isFatal: true }, 'fatal'],
    [{ code: 22, message: 'illegal generation', isTxnRequiresAbort: true }, 'abortable'],
    [{ code: 47, message: 'old epoch', isTxnRequiresAbort: true }, 'abortable'],
    [{ code: -185, message: 'Local: Timed out', isRetriable: true }, 'retriable'],
    [new Error('transform bug'), 'abortable'],
    [undefined, 'abortable'],
    ['a string', 'abortable'],
  ])('%j -> %s', (e, cls) => {
    expect(classifyTxError(e)).toBe(cls);
  });

  it('describes anything without throwing', () => {
    expect(describeError(null)).toEqual({ code: null, message: 'null' });
    expect(describeError({ code: 3, message: 'x' })).toEqual({ code: 3, message: 'x' });
  });
});
