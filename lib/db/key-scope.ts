import { MAX_SCOPE_KPIS } from '../domain/api-key';

/**
 * How an API key's KPI scope (the KPIs it may push to, or none for every KPI of its tenant) is stored
 * on the key item, so that the push path checks it with the read it already makes.
 *
 * Stored form: the 16 bytes of each KPI id (a UUID), concatenated, base64url. 100 ids take 2,134
 * characters, where 100 UUID strings in a list take about 3,700 bytes. The difference is what keeps
 * the key item under 4 KB with the longest name and every audit attribute, so the push's strongly
 * consistent read of the key stays one read unit (the push budget: a single push reads ≤ 2 units;
 * tests/integration/functions/api-key-roll-scope.test.ts measures it).
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID_BYTES = 16;

export const encodeScope = (kpiIds: readonly string[]): string => {
  if (kpiIds.length === 0 || kpiIds.length > MAX_SCOPE_KPIS) {
    throw new RangeError(`A key scope names 1 to ${MAX_SCOPE_KPIS} KPIs, got ${kpiIds.length}.`);
  }
  const bytes = Buffer.alloc(kpiIds.length * UUID_BYTES);
  kpiIds.forEach((id, index) => {
    if (!UUID.test(id)) throw new RangeError(`A key scope holds KPI ids (UUIDs), got "${id}".`);
    bytes.write(id.replaceAll('-', ''), index * UUID_BYTES, 'hex');
  });
  return bytes.toString('base64url');
};

export const decodeScope = (stored: string): string[] => {
  const bytes = Buffer.from(stored, 'base64url');
  const ids: string[] = [];
  for (let offset = 0; offset + UUID_BYTES <= bytes.length; offset += UUID_BYTES) {
    const hex = bytes.toString('hex', offset, offset + UUID_BYTES);
    ids.push(
      `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
    );
  }
  return ids;
};
