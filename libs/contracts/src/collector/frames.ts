/**
 * The collector's framed batch body (`application/vnd.clickstream.frames`): many records, each with
 * its own Kafka key and the generator's headers, so that bytes the collector cannot decode (poison)
 * still reach clickstream.raw with their seq. Decoding never throws.
 *
 * frame := u32be metaLength, meta (UTF-8 JSON: { key?: string, headers?: { [name]: string } }),
 *          u32be valueLength, value (the record's bytes, unchanged)
 * A zero metaLength means no key and no headers.
 */

export const FRAMES_CONTENT_TYPE = 'application/vnd.clickstream.frames';

export interface Frame {
  key: string | null;
  headers: Record<string, string>;
  value: Buffer;
}

export type FramesResult = { ok: true; frames: Frame[] } | { ok: false; detail: string };

/** Encodes frames (used by clients such as the generator's --via http). */
export function encodeFrames(frames: readonly Frame[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of frames) {
    const hasMeta = f.key !== null || Object.keys(f.headers).length > 0;
    const meta = hasMeta
      ? Buffer.from(
          JSON.stringify(
            f.key === null ? { headers: f.headers } : { key: f.key, headers: f.headers },
          ),
        )
      : Buffer.alloc(0);
    const head = Buffer.allocUnsafe(4);
    head.writeUInt32BE(meta.length, 0);
    const len = Buffer.allocUnsafe(4);
    len.writeUInt32BE(f.value.length, 0);
    parts.push(head, meta, len, f.value);
  }
  return Buffer.concat(parts);
}

function parseMeta(
  bytes: Buffer,
  index: number,
): { key: string | null; headers: Record<string, string> } | string {
  if (bytes.length === 0) return { key: null, headers: {} };
  let meta: unknown;
  try {
    meta = JSON.parse(bytes.toString('utf8'));
  } catch {
    return `frame ${index}: meta is not JSON`;
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta))
    return `frame ${index}: meta is not a JSON object`;
  const { key, headers } = meta as { key?: unknown; headers?: unknown };
  if (key !== undefined && key !== null && typeof key !== 'string')
    return `frame ${index}: meta.key is not a string`;
  const out: Record<string, string> = {};
  if (headers !== undefined) {
    if (typeof headers !== 'object' || headers === null || Array.isArray(headers))
      return `frame ${index}: meta.headers is not an object`;
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (typeof value !== 'string') return `frame ${index}: header ${name} is not a string`;
      out[name] = value;
    }
  }
  return { key: typeof key === 'string' ? key : null, headers: out };
}

/** Splits a framed body; `maxFrames` bounds the work done on a hostile body. Never throws. */
export function decodeFrames(body: Buffer, maxFrames: number): FramesResult {
  const frames: Frame[] = [];
  let pos = 0;
  while (pos < body.length) {
    const index = frames.length;
    if (index >= maxFrames) return { ok: false, detail: `more than ${maxFrames} frames` };
    if (pos + 4 > body.length)
      return { ok: false, detail: `frame ${index}: truncated meta length` };
    const metaLength = body.readUInt32BE(pos);
    pos += 4;
    if (pos + metaLength + 4 > body.length)
      return { ok: false, detail: `frame ${index}: meta (${metaLength} bytes) runs past the body` };
    const meta = parseMeta(body.subarray(pos, pos + metaLength), index);
    if (typeof meta === 'string') return { ok: false, detail: meta };
    pos += metaLength;
    const valueLength = body.readUInt32BE(pos);
    pos += 4;
    if (pos + valueLength > body.length)
      return {
        ok: false,
        detail: `frame ${index}: value (${valueLength} bytes) runs past the body`,
      };
    frames.push({ ...meta, value: Buffer.from(body.subarray(pos, pos + valueLength)) });
    pos += valueLength;
  }
  return { ok: true, frames };
}
