import type { TestProject } from 'vitest/node';
import { newSigningKey, startKeysServer } from './github-keys';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the integration run's GitHub secret-scanning keys are published (SECRET_SCANNING_KEYS_URL). */
    secretScanningKeysUrl: string;
    /** The key that signs the run's secret-scanning reports. */
    secretScanningKey: { identifier: string; privateKeyPem: string };
  }
}

/** One published signing key for the whole integration run, as GitHub publishes its keys. */
export async function setup(project: TestProject) {
  const key = newSigningKey();
  const server = await startKeysServer([key]);
  project.provide('secretScanningKeysUrl', server.url);
  project.provide('secretScanningKey', { identifier: key.identifier, privateKeyPem: key.privateKeyPem });
  return () => server.close();
}
