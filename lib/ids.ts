import { randomBytes } from 'node:crypto';

/**
 * UUID version 7 (RFC 9562 §5.7): time-ordered, so items sorted by id list in creation order, and
 * still a UUID where the spec asks for one (KPI ids).
 */
export const uuidv7 = (now = Date.now()): string => {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
