import { beforeAll, describe, expect, it } from 'vitest';
import { handler as inviteHandler } from '../../../functions/invite-user';
import { handler as ownersHandler } from '../../../functions/list-kpi-owners';
import { handler as updateHandler } from '../../../functions/update-user';
import { createUser } from '../../../lib/db/users';
import { invoke } from '../../support/events';
import { bearer, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { describeJwtAuth } from '../../support/jwt-auth-cases';

/** GET /kpi-owners: whom ADMINs and EDITORs may make a KPI's owner, through the handler. */
const owners = (headers: Record<string, string>, query: Record<string, string> = {}) =>
  invoke(ownersHandler, { path: '/api/kpi-owners', headers, query });

/** Oldest first: user ids are UUIDv7. */
const byAge = <T extends { id: string }>(users: T[]) => [...users].sort((a, b) => a.id.localeCompare(b.id));

let tenant: TestTenant;
let other: TestTenant;
let leaver: string;
let invited: string;
beforeAll(async () => {
  [tenant, other] = await Promise.all([
    createTestTenant({ kpiTypes: [] }),
    createTestTenant({ kpiTypes: [] }),
  ]);
  const admin = bearer(tenant.users.ADMIN.token);
  const invitation = await invoke(inviteHandler, {
    method: 'POST',
    path: '/api/users',
    headers: admin,
    body: { email: `invited-${crypto.randomUUID()}@example.test`, role: 'EDITOR' },
  });
  expect(invitation.status).toBe(201);
  invited = invitation.body.user.id;
  leaver = (
    await createUser(db, {
      tenantId: tenant.tenant.id,
      email: `leaver-${crypto.randomUUID()}@example.test`,
      role: 'VIEWER',
      passwordHash: tenant.users.VIEWER.passwordHash!,
    })
  ).id;
  const deactivated = await invoke(updateHandler, {
    method: 'PATCH',
    path: `/api/users/${leaver}`,
    pathParameters: { id: leaver },
    headers: admin,
    body: { active: false },
  });
  expect(deactivated.status).toBe(200);
});

describeJwtAuth('GET /kpi-owners', (headers) => owners(headers), { roles: ['ADMIN', 'EDITOR'] });

describe('GET /kpi-owners', () => {
  it('answers ADMINs and EDITORs the tenant’s active users, oldest first, as id, name and e-mail only', async () => {
    const { ADMIN, EDITOR, VIEWER } = tenant.users;
    for (const caller of [ADMIN, EDITOR]) {
      const page = await owners(bearer(caller.token));
      expect(page.status).toBe(200);
      expect(page.body).toEqual({
        items: byAge([ADMIN, EDITOR, VIEWER]).map((u) => ({ id: u.id, name: u.name, email: u.email })),
      });
    }
    const ids = (await owners(bearer(ADMIN.token))).body.items.map((u: { id: string }) => u.id);
    expect(ids).not.toContain(invited);
    expect(ids).not.toContain(leaver);
    expect(ids).not.toContain(other.users.ADMIN.id);
  });

  it('is 403 for a VIEWER, naming the roles', async () => {
    const refused = await owners(bearer(tenant.users.VIEWER.token));
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toBe('This operation requires the role ADMIN or EDITOR.');
  });

  it('is paged: a page reads `limit` users, leaves out the inactive ones and gives the cursor to the rest', async () => {
    const all: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await owners(bearer(tenant.users.EDITOR.token), {
        limit: '2',
        ...(cursor ? { cursor } : {}),
      });
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      all.push(...page.body.items.map((u: { id: string }) => u.id));
      cursor = page.body.nextCursor;
      pages++;
    } while (cursor);
    // Five users: the three active ones over three pages of at most two users read each.
    expect(pages).toBe(3);
    expect(all).toEqual(byAge(Object.values(tenant.users)).map((u) => u.id));
  });
});
