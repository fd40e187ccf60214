import { derivedEventId, stableJson } from './event-id';

describe('derivedEventId', () => {
  it('is the same for the same content in any key order, and ignores event_id', () => {
    const a = derivedEventId({ seq: 1, run_id: 'r', nested: { b: 1, a: 2 } });
    expect(derivedEventId({ nested: { a: 2, b: 1 }, run_id: 'r', seq: 1, event_id: null })).toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('differs when any field differs', () => {
    expect(derivedEventId({ seq: 1 })).not.toBe(derivedEventId({ seq: 2 }));
  });

  it('writes sorted JSON and leaves undefined out', () => {
    expect(stableJson({ b: [1, { d: 1, c: undefined }], a: 'x' })).toBe(
      '{"a":"x","b":[1,{"d":1}]}',
    );
  });
});
