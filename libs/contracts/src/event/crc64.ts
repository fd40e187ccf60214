/** CRC-64-AVRO (Rabin) fingerprint of a schema's Parsing Canonical Form, as the Avro spec defines it for single-object encoding. */

// avsc 5.7.9 only offers crypto hashes (md5, sha256) in Type#fingerprint, so the spec's own
// algorithm is implemented here; it runs once per released schema at load time, so BigInt is fine.
const EMPTY = 0xc15d213aa4d7a795n;
const MASK = 0xffffffffffffffffn;

const TABLE: bigint[] = (() => {
  const table: bigint[] = [];
  for (let i = 0; i < 256; i++) {
    let fp = BigInt(i);
    for (let j = 0; j < 8; j++) fp = (fp >> 1n) ^ (EMPTY & (-(fp & 1n) & MASK));
    table.push(fp);
  }
  return table;
})();

/** The fingerprint as an unsigned 64-bit integer (the Avro spec prints it as a signed Java long). */
export function crc64Avro(bytes: Uint8Array): bigint {
  let fp = EMPTY;
  for (const byte of bytes)
    fp = (fp >> 8n) ^ (TABLE[Number((fp ^ BigInt(byte)) & 0xffn)] as bigint);
  return fp;
}

/** The 8 bytes that follow C3 01 in a single-object encoding: the fingerprint, little-endian. */
export function crc64AvroBytes(canonicalForm: string): Buffer {
  const out = Buffer.alloc(8);
  out.writeBigUInt64LE(crc64Avro(Buffer.from(canonicalForm, 'utf8')));
  return out;
}
