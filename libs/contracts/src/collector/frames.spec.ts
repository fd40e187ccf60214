import { decodeFrames, encodeFrames, type Frame } from './frames';

describe('collector frames', () => {
  it('round-trips frames with and without meta, including an empty value', () => {
    const frames: Frame[] = [
      {
        key: 's-1',
        headers: { 'cs-seq': '7', 'cs-run-id': 'r' },
        value: Buffer.from([0xc3, 1, 2]),
      },
      { key: null, headers: {}, value: Buffer.from('poison') },
      { key: null, headers: { 'cs-seq': '9' }, value: Buffer.alloc(0) },
    ];
    expect(decodeFrames(encodeFrames(frames), 10)).toEqual({ ok: true, frames });
  });

  it('decodes an empty body as no frames', () => {
    expect(decodeFrames(Buffer.alloc(0), 10)).toEqual({ ok: true, frames: [] });
  });

  it('names a truncated frame, bad meta and too many frames', () => {
    const one = encodeFrames([{ key: 'k', headers: {}, value: Buffer.from('abc') }]);
    expect(decodeFrames(one.subarray(0, one.length - 1), 10)).toEqual({
      ok: false,
      detail: 'frame 0: value (3 bytes) runs past the body',
    });
    expect(decodeFrames(Buffer.from([0, 0]), 10)).toEqual({
      ok: false,
      detail: 'frame 0: truncated meta length',
    });
    const badMeta = Buffer.concat([Buffer.from([0, 0, 0, 1]), Buffer.from('{'), Buffer.alloc(4)]);
    expect(decodeFrames(badMeta, 10)).toEqual({ ok: false, detail: 'frame 0: meta is not JSON' });
    expect(decodeFrames(Buffer.concat([one, one]), 1)).toEqual({
      ok: false,
      detail: 'more than 1 frames',
    });
  });
});
