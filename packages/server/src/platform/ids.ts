import { randomFillSync } from 'node:crypto';

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
