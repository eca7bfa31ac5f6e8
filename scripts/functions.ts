/**
 * `npm run functions`: writes serverless.yml's functions (infra/functions.json) from the route
 * modules' declarations (scripts/deployment.ts). Commit the result: a test fails while the committed
 * file differs from the declarations.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FUNCTIONS_FILE, serializeFunctions, serverlessFunctions } from './deployment';
import { loadRouteModules } from './routes';

const main = async () => {
  const modules = await loadRouteModules();
  const functions = serverlessFunctions(
    modules.map(({ name, route, deployment }) => ({ file: name, route, deployment })),
  );
  writeFileSync(resolve(__dirname, '..', FUNCTIONS_FILE), serializeFunctions(functions));
  console.log(`Wrote ${FUNCTIONS_FILE} (${Object.keys(functions).length} functions)`);
};

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
