/**
 * `npm run demo:push`: the first push, as an external system makes it, against the running
 * `npm start`. It reads the demo record (SEED_FILE, default .local/seed.json; scripts/local-data.ts)
 * for the base URL, Acme's "CI pipeline" key and its revenue KPI, and sends this month's value with
 * POST /integrations/push/measurement. The demo history ends with the last complete month, so the
 * push adds a point and replaces none; run again, it updates the same point.
 */
import { relative, resolve } from 'node:path';
import { dataFolderHint, localData, readSeedFile } from './local-data';
import { ACME_REVENUE } from './seed';

const root = resolve(__dirname, '..');

/** The revenue trend of the demo history, one period further: the value a nightly job would send. */
const nextRevenue = () => {
  const { start, growth, periods } = ACME_REVENUE;
  const trend = start * (1 + (growth * periods) / (periods - 1));
  return { actual: Math.round(trend), target: Math.round(trend * 1.05) };
};

const main = async (): Promise<number> => {
  const data = localData(root, process.env);
  const shownSeedFile = data.seedFile.startsWith(`${root}/`) ? relative(root, data.seedFile) : data.seedFile;
  const seed = readSeedFile(data.seedFile);
  if (!seed) {
    console.error(
      `No demo record at ${shownSeedFile}: run npm start first (it writes the record). ${dataFolderHint('npm run demo:push', process.env)}`,
    );
    return 1;
  }
  const acme = seed.tenants[0];
  const key = acme?.apiKeys.find((apiKey) => apiKey.status === 'active' && apiKey.kpiIds === null);
  const kpi = acme?.kpis.find((candidate) => candidate.type === 'BSC_KPI');
  const admin = acme?.users.find((user) => user.role === 'ADMIN');
  if (!acme || !key || !kpi || !admin) {
    console.error(
      `${shownSeedFile} has no demo tenant with an active key and a BSC KPI: npm run reset seeds it again.`,
    );
    return 1;
  }
  const measurement = { kpiId: kpi.id, kpiType: kpi.type, ...nextRevenue() };
  const url = `${seed.baseUrl}/integrations/push/measurement`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': key.key, 'Content-Type': 'application/json' },
      body: JSON.stringify(measurement),
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    console.error(
      `Nothing answers at ${seed.baseUrl} (${cause}), the address recorded in ${shownSeedFile}: start the service with npm start in another terminal, then run this again. ${dataFolderHint('npm run demo:push', process.env)}`,
    );
    return 1;
  }
  // 201 or 200: the stored measurement; otherwise a problem document.
  const body = (await response.json().catch(() => ({}))) as {
    periodStart?: string;
    periodEnd?: string;
    type?: string;
    detail?: string;
  };
  if (!response.ok) {
    console.error(`The push was refused: ${response.status} ${body.type ?? ''} ${body.detail ?? ''}`.trim());
    if (response.status === 401)
      console.error('The demo keys are gone from the database: npm run reset seeds them again.');
    return 1;
  }
  const platform = seed.baseUrl.replace(/\/api$/, '/platform');
  const seedPath = relative(root, data.seedFile).startsWith('..')
    ? data.seedFile
    : `./${relative(root, data.seedFile)}`;
  console.log(
    [
      `Pushed ${measurement.actual.toLocaleString('en-US')} (target ${measurement.target.toLocaleString('en-US')}) to "${kpi.name}" of ${acme.name}, period ${body.periodStart} to ${body.periodEnd}: ${response.status === 201 ? 'created' : 'updated'} (${response.status}).`,
      `  POST ${url}, x-api-key of the demo key ${key.prefix}… (${shownSeedFile})`,
      '',
      `See it on the KPI page: ${platform}/kpis?kpi=${kpi.id}`,
      `  sign in as ${admin.email}, password ${admin.password}`,
      '',
      'The same push with curl:',
      `  curl -s -X POST ${url} -H 'Content-Type: application/json' \\`,
      `    -H "x-api-key: $(node -p "require('${seedPath}').tenants[0].apiKeys[${acme.apiKeys.indexOf(key)}].key")" \\`,
      `    -d '${JSON.stringify(measurement)}'`,
    ].join('\n'),
  );
  return 0;
};

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
