/**
 * `npm run reset [-- --yes]`: starts the local data over. Deletes what `npm start` keeps in
 * LOCAL_DATA_DIR (default .local/; scripts/local-data.ts): the database, the demo record and the
 * signing key, then seeds the demo data again into a new database, so the next `npm start` serves it
 * at once. Asks first on a terminal; `--yes` skips the question (without a terminal it is required).
 * Refuses while an `npm start` uses the folder. Every token signed before is refused afterwards (a
 * new signing key): sign in again.
 */

import { relative, resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { createDatabase } from '../lib/db/client';
import { freePort, type RunningDynamoDb, startDynamoDbLocal, stopGroup } from './local/processes';
import { claim, holderOf, localData, prepareLocalData, wipe } from './local-data';
import { DEMO_PASSWORD } from './seed';

const root = resolve(__dirname, '..');
const data = localData(root, { ...process.env, DYNAMODB_IN_MEMORY: 'false' });
const shown = (path: string) => (path.startsWith(`${root}/`) ? relative(root, path) : path);

let dynamo: RunningDynamoDb | undefined;
let release: (() => void) | undefined;
process.on('exit', () => {
  stopGroup(dynamo?.process, 'SIGKILL');
  release?.();
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const confirmed = async (): Promise<boolean> => {
  if (process.argv.slice(2).some((arg) => arg === '--yes' || arg === '-y')) return true;
  if (!process.stdin.isTTY) {
    console.error('Without a terminal to ask on, confirm with: npm run reset -- --yes');
    return false;
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  const answer = await prompt.question(
    `Delete every tenant, user, key, KPI and measurement in ${shown(data.dir)} and seed the demo data again? [y/N] `,
  );
  prompt.close();
  return /^y(es)?$/i.test(answer.trim());
};

const main = async (): Promise<number> => {
  const holder = holderOf(data);
  if (holder) {
    console.error(`npm start (pid ${holder}) uses ${shown(data.dir)}: stop it (Ctrl-C), then reset.`);
    return 1;
  }
  if (!(await confirmed())) {
    console.error('Nothing was deleted.');
    return 1;
  }
  release = claim(data);
  wipe(data);
  console.log(`Deleted the local data in ${shown(data.dir)}. Seeding the demo data ...`);
  dynamo = await startDynamoDbLocal(await freePort(), { dataDir: data.dynamoDir });
  const db = createDatabase({
    tableName: 'strategy-service-local',
    region: 'eu-central-1',
    endpoint: dynamo.endpoint,
  });
  // Recorded where the next npm start with the same settings answers: its ports, not this one's.
  const { seed } = await prepareLocalData(db, data, {
    baseUrl: `http://localhost:${process.env.PORT || 3000}/api`,
    dynamodbEndpoint: `http://127.0.0.1:${process.env.DYNAMODB_PORT || 8000}`,
  });
  await dynamo.stop();
  dynamo = undefined;
  console.log(
    [
      `Seeded ${seed?.tenants.length ?? 0} demo tenants, recorded in ${shown(data.seedFile)}${process.env.JWT_SECRET ? '.' : '; a new signing key, so sign in again.'}`,
      `Demo logins (password "${DEMO_PASSWORD}"): ${(seed?.tenants ?? []).flatMap((tenant) => tenant.users.map((user) => user.email)).join(', ')}`,
      'Start the service with npm start.',
    ].join('\n'),
  );
  return 0;
};

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
