import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { revokeAllSessions, updateAccount } from '../../../../lib/auth/accounts';
import { WriteConflict } from '../../../../lib/db/errors';
import { getUser, updateUser } from '../../../../lib/db/users';
import { AppError } from '../../../../lib/errors';
import { throttling } from '../../../support/faults';
import { createTestTenant, db } from '../../../support/fixtures';
import { instrument } from '../../../support/instrumented-db';
import { captureOutput } from '../../../support/output';

/**
 * lib/auth/accounts.ts: how a change is decided again when someone else changed the user between its
 * read and its write (a real conditional write on DynamoDB
 * Local; the other change is made just before the write is sent).
 */
/** The write of a change: an update, or with `sessions.revoked`, a transaction with its event. */
const isWrite = (name: string) => name === 'UpdateItemCommand' || name === 'TransactWriteItemsCommand';

/** A client on which, before each of the first writes, another change sets the user's role. */
const raced = (tenantId: string, userId: string, roles: ('ADMIN' | 'EDITOR' | 'VIEWER')[]) =>
  instrument(db, async ({ name }, nth) => {
    const role = isWrite(name) ? roles[nth] : undefined;
    if (role) await updateUser(db, tenantId, userId, { role });
    return undefined;
  });

describe('updateAccount', () => {
  it('decides again on the user as changed: a demotion that became a promotion ends no session', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const admin = users.ADMIN;
    const probe = raced(tenant.id, admin.id, ['VIEWER']);
    const updated = await updateAccount(probe.db, tenant.id, admin.id, { role: 'EDITOR' });
    expect(updated.role).toBe('EDITOR');
    expect(updated.tokenVersion).toBe(admin.tokenVersion);
    expect(probe.calls.filter((call) => call.command === 'GetItemCommand')).toHaveLength(2);
  });

  it('decides again on the user as changed: a promotion that became a demotion ends every session', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const viewer = users.VIEWER;
    // Read as a VIEWER, the change to EDITOR is a promotion; the user is made ADMIN before it is written.
    const probe = raced(tenant.id, viewer.id, ['ADMIN']);
    const updated = await updateAccount(probe.db, tenant.id, viewer.id, { role: 'EDITOR' });
    expect(updated.role).toBe('EDITOR');
    expect(updated.tokenVersion).toBe(viewer.tokenVersion + 1);
  });

  it('acts for the service when no one else is named', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const { lines } = await captureOutput(() =>
      updateAccount(db, tenant.id, users.EDITOR.id, { disabled: true }),
    );
    expect(lines.filter((line) => line.audit)).toEqual([
      expect.objectContaining({ audit: 'sessions.revoked', actorType: 'system', actorId: 'service' }),
    ]);
  });

  it('gives up after three tries when the user keeps changing, and changes nothing', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const editor = users.EDITOR;
    const probe = raced(tenant.id, editor.id, ['VIEWER', 'ADMIN', 'VIEWER', 'ADMIN']);
    const failure = await updateAccount(probe.db, tenant.id, editor.id, { disabled: true }).catch(
      (error: Error) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(`User ${editor.id} kept changing; the change was not made.`);
    expect((failure as Error).cause).toBeInstanceOf(WriteConflict);
    expect(probe.calls.filter((call) => isWrite(call.command))).toHaveLength(3);
    const stored = await getUser(db, tenant.id, editor.id);
    expect(stored?.disabled).toBe(false);
    expect(stored?.tokenVersion).toBe(editor.tokenVersion);
  });

  it('passes on a failure that is not a conflict at once, without trying again', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    let updates = 0;
    const probe = instrument(db, ({ name }) => {
      if (!isWrite(name)) return undefined;
      updates++;
      throw throttling();
    });
    await expect(
      updateAccount(probe.db, tenant.id, users.VIEWER.id, { disabled: true }),
    ).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    expect(updates).toBe(1);
  });

  it('answers NOT_FOUND, naming the user, for a user the tenant does not have', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const missing = randomUUID();
    const failure = await updateAccount(db, tenant.id, missing, { disabled: true }).catch((error) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'NOT_FOUND', message: `User ${missing} not found.` });
  });
});

describe('revokeAllSessions', () => {
  it('raises the token version once, acting for the service when no one else is named', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const editor = users.EDITOR;
    const { result, lines } = await captureOutput(() => revokeAllSessions(db, tenant.id, editor.id));
    expect(result.tokenVersion).toBe(editor.tokenVersion + 1);
    expect(lines.filter((line) => line.audit)).toEqual([
      expect.objectContaining({
        audit: 'sessions.revoked',
        actorType: 'system',
        actorId: 'service',
        reason: 'revoked',
      }),
    ]);
  });

  it('reads the user again when they changed before the write, and revokes once', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const editor = users.EDITOR;
    const probe = raced(tenant.id, editor.id, ['VIEWER']);
    const revoked = await revokeAllSessions(probe.db, tenant.id, editor.id);
    expect(revoked).toMatchObject({ role: 'VIEWER', tokenVersion: editor.tokenVersion + 1 });
    expect(probe.calls.filter((call) => call.command === 'GetItemCommand')).toHaveLength(2);
  });

  it('gives up after three tries when the user keeps changing, and revokes nothing', async () => {
    const { tenant, users } = await createTestTenant({ kpiTypes: [] });
    const editor = users.EDITOR;
    const probe = raced(tenant.id, editor.id, ['VIEWER', 'ADMIN', 'VIEWER', 'ADMIN']);
    const failure = await revokeAllSessions(probe.db, tenant.id, editor.id).catch((error: Error) => error);
    expect(failure).toMatchObject({
      message: `User ${editor.id} kept changing; the change was not made.`,
      cause: expect.any(WriteConflict),
    });
    expect(probe.calls.filter((call) => isWrite(call.command))).toHaveLength(3);
    expect((await getUser(db, tenant.id, editor.id))?.tokenVersion).toBe(editor.tokenVersion);
  });

  it('answers NOT_FOUND, naming the user, for a user the tenant does not have', async () => {
    const { tenant } = await createTestTenant({ kpiTypes: [] });
    const missing = randomUUID();
    await expect(revokeAllSessions(db, tenant.id, missing)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `User ${missing} not found.`,
    });
  });
});
