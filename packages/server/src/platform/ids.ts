import { createHash, randomFillSync } from 'node:crypto';

/** Random bytes drawn from the CSPRNG 4 KiB at a time: one call per 256 ids instead of one per id (batches make thousands). */
const pool = Buffer.alloc(4096);
let offset = pool.length;

/** Sortable UUIDv7 (RFC 9562): 48-bit millisecond time, then random bits. */
export function newId(nowMs: number = Date.now()): string {
  if (offset + 16 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = Buffer.from(pool.subarray(offset, (offset += 16)));
  bytes.writeUIntBE(nowMs, 0, 6);
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * A name-based UUID (version 5, RFC 9562 §5.5): SHA-1 of the namespace UUID's bytes and the name.
 * The same (namespace, name) always gives the same id, so a record we keep no row for (a processor
 * payment reported by several requests and webhooks) has one stable id.
 */
export function nameBasedId(namespace: string, name: string): string {
  const bytes = createHash('sha1').update(Buffer.from(namespace.replaceAll('-', ''), 'hex')).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
