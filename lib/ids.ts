import { randomBytes } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

/**
 * UUID version 7 (RFC 9562 §5.7): time-ordered, so items sorted by id list in creation order, and
 * still a UUID where the spec asks for one (KPI ids). Within one millisecond the 12-bit `rand_a`
 * field is a counter (RFC 9562 §6.2, method 1), so ids made by one process are strictly increasing.
 */
export const uuidv7 = (now = Date.now()): string => {
  if (now > lastMs) {
    lastMs = now;
    sequence = randomBytes(2).readUInt16BE() & 0x3ff; // leave headroom below 0xfff
  } else {
    sequence += 1;
    if (sequence > 0xfff) {
      lastMs += 1;
      sequence = 0;
    }
  }
  const bytes = randomBytes(16);
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
