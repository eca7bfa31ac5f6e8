import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../lib/config';

const { jwtCorsFor } = createRequire(__filename)('../../../scripts/cors.cjs') as {
  jwtCorsFor: (value: string) => false | { origins: string[] };
};

/** What the functions accept as CORS_ALLOWED_ORIGINS (the rest of the configuration as on a stage). */
const functionsAccept = (value: string) => {
  try {
    parseConfig({
      TABLE_NAME: 'strategy-service-dev',
      JWT_SECRET: 'x'.repeat(32),
      CORS_ALLOWED_ORIGINS: value,
    });
    return true;
  } catch (error) {
    if (error instanceof ConfigError && error.message.includes('CORS_ALLOWED_ORIGINS')) return false;
    throw error;
  }
};

describe('the deployment’s CORS setting (scripts/cors.cjs)', () => {
  it('turns the stage parameter into the origins the functions echo, and no parameter into no CORS', () => {
    expect(jwtCorsFor(' https://a.example , http://localhost:3000')).toMatchObject({
      origins: ['https://a.example', 'http://localhost:3000'],
    });
    expect(jwtCorsFor('')).toBe(false);
  });

  it.each([
    'https://a.example',
    'https://a.example,http://localhost:3000',
    'https://a.example/',
    'https://a.example/app',
    'ftp://a.example',
    'https://a.example,,https://b.example',
  ])('takes %j exactly when the functions take it', (value) => {
    const accepted = (() => {
      try {
        jwtCorsFor(value);
        return true;
      } catch {
        return false;
      }
    })();
    expect(accepted).toBe(functionsAccept(value));
  });

  it('names the setting it refuses', () => {
    expect(() => jwtCorsFor('https://a.example/app')).toThrow(/^corsOrigins: .*https:\/\/a\.example\/app/);
  });
});
