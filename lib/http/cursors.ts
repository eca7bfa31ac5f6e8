import type { SecretSource } from '../crypto/seal';
import { createSeal } from '../crypto/seal';
import { invalidCursor } from '../db/pagination';

/**
 * The cursors the API hands out (`nextCursor`) and takes back (`?cursor=`), sealed (lib/crypto/seal.ts):
 * AES-256-GCM over the storage's cursor (DynamoDB's LastEvaluatedKey, which holds table keys such as
 * `APIKEY#<sha256 of a raw key>`), so a client can neither read one nor make or alter one. The
 * associated data binds a cursor to the operation, the tenant and the path of the request that
 * produced it: a cursor of one list is refused by every other. Refused cursors are the same 400 as a
 * malformed one.
 */
export interface CursorSeal {
  seal(cursor: string, binding: string): Promise<string>;
  /** The storage cursor, or a 400 `validation-failed` naming `cursor`. */
  open(sealed: string, binding: string): Promise<string>;
}

export const createCursorSeal = (secret: SecretSource): CursorSeal => {
  const seal = createSeal(secret, { label: 'strategy-service pagination cursor v1', version: 'c1.' });
  return {
    seal: (cursor, binding) => seal.seal(cursor, binding),
    async open(sealed, binding) {
      const cursor = await seal.open(sealed, binding);
      if (cursor === undefined) throw invalidCursor();
      return cursor;
    },
  };
};

/**
 * What a page cursor is bound to: the operation, the caller's tenant and the path parameters (a KPI's
 * measurements), so a cursor of one list is refused by every other.
 */
export const cursorBinding = (operationId: string, tenantId: string, params: unknown) =>
  JSON.stringify([operationId, tenantId, params ?? null]);
