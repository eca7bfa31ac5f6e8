import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../lib/config';

const valid = { TABLE_NAME: 'strategy-service-dev', JWT_SECRET: 'x'.repeat(32) };

describe('configuration (read once at cold start)', () => {
  it('applies defaults', () => {
    expect(parseConfig(valid)).toMatchObject({
      TABLE_NAME: 'strategy-service-dev',
      JWT_ISSUER: 'strategy-service',
      TENANT_CACHE_TTL_SECONDS: 30,
    });
  });

  it('fails fast, naming the variable, when one is missing or too weak', () => {
    expect(() => parseConfig({ JWT_SECRET: valid.JWT_SECRET })).toThrow(/TABLE_NAME/);
    expect(() => parseConfig({ ...valid, JWT_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...valid, JWT_SECRET: 'short' })).toThrow(/JWT_SECRET/);
  });

  it('treats an empty DYNAMODB_ENDPOINT as unset (the deployed stage passes "")', () => {
    expect(parseConfig({ ...valid, DYNAMODB_ENDPOINT: '' }).DYNAMODB_ENDPOINT).toBeUndefined();
  });
});
