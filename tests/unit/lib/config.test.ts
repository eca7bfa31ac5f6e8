import { describe, expect, it } from 'vitest';
import { ConfigError, corsOrigins, parseConfig } from '../../../lib/config';

const valid = { TABLE_NAME: 'strategy-service-dev', JWT_SECRET: 'x'.repeat(32) };

describe('configuration (read once at cold start)', () => {
  it('applies defaults', () => {
    expect(parseConfig(valid)).toEqual({
      AUDIT_RETENTION_DAYS: 400,
      TABLE_NAME: 'strategy-service-dev',
      DYNAMODB_ENDPOINT: undefined,
      AWS_REGION: 'eu-central-1',
      JWT_SECRET: 'x'.repeat(32),
      JWT_SECRET_PARAMETER: undefined,
      JWT_KEY_MAX_AGE_SECONDS: 300,
      CORS_ALLOWED_ORIGINS: '',
      JWT_ISSUER: 'strategy-service',
      JWT_AUDIENCE: 'strategy-service-api',
      REFRESH_TOKEN_TTL_SECONDS: 30 * 24 * 3600,
      TENANT_CACHE_TTL_SECONDS: 30,
      RATE_LIMIT_WINDOW_SECONDS: 60,
      RATE_LIMIT_FREE: 60,
      RATE_LIMIT_BUSINESS: 300,
      RATE_LIMIT_ENTERPRISE: 3000,
      SESSION_CACHE_TTL_SECONDS: 30,
      LOGIN_MAX_FAILURES: 10,
      LOGIN_MAX_FAILURES_PER_SOURCE: 100,
      LOGIN_FAILURE_CEILING_PER_EMAIL: 1000,
      LOGIN_LOCKOUT_WINDOW_SECONDS: 900,
      LOGIN_NEW_DEVICE_ATTEMPTS_PER_MINUTE: 10,
      SECRET_SCANNING_KEYS_URL: 'https://api.github.com/meta/public_keys/secret_scanning',
      STAGE: 'dev',
      WEBHOOK_QUEUE_URL: undefined,
    });
  });

  it('reads the stage and the webhook queue, refusing a malformed one', () => {
    const config = parseConfig({
      ...valid,
      STAGE: 'local',
      WEBHOOK_QUEUE_URL: 'https://sqs.eu-central-1.amazonaws.com/123456789012/q',
    });
    expect(config.STAGE).toBe('local');
    expect(config.WEBHOOK_QUEUE_URL).toBe('https://sqs.eu-central-1.amazonaws.com/123456789012/q');
    expect(() => parseConfig({ ...valid, STAGE: 'Prod stage' })).toThrow(/STAGE must be a stage name/);
    expect(() => parseConfig({ ...valid, WEBHOOK_QUEUE_URL: 'not a url' })).toThrow(
      /WEBHOOK_QUEUE_URL must be a URL/,
    );
  });

  it('reads numbers from their strings', () => {
    const config = parseConfig({ ...valid, RATE_LIMIT_FREE: '7', TENANT_CACHE_TTL_SECONDS: '0' });
    expect(config.RATE_LIMIT_FREE).toBe(7);
    expect(config.TENANT_CACHE_TTL_SECONDS).toBe(0);
  });

  it('fails fast, naming the variable, when one is missing or too weak', () => {
    expect(() => parseConfig({ JWT_SECRET: valid.JWT_SECRET })).toThrow(/TABLE_NAME is required/);
    expect(() => parseConfig({ ...valid, TABLE_NAME: 'ab' })).toThrow(/TABLE_NAME must be at least 3/);
    expect(() => parseConfig({ ...valid, JWT_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => parseConfig({ ...valid, JWT_SECRET: 'short' })).toThrow(/JWT_SECRET must be at least 32/);
    expect(() => parseConfig({ ...valid, AWS_REGION: '' })).toThrow(/AWS_REGION is required/);
    // One message per variable: an empty name is missing, not also too short.
    expect(() => parseConfig({ ...valid, TABLE_NAME: '' })).toThrow(
      new ConfigError('Invalid configuration: TABLE_NAME is required'),
    );
  });

  it('names every bad variable at once', () => {
    expect(() => parseConfig({ ...valid, RATE_LIMIT_FREE: '0', LOGIN_MAX_FAILURES: '2.5' })).toThrow(
      /RATE_LIMIT_FREE must be a whole number from 1; LOGIN_MAX_FAILURES must be a whole number from 1/,
    );
    expect(() => parseConfig({ TABLE_NAME: '', JWT_ISSUER: '', RATE_LIMIT_FREE: '-1.5' })).toThrow(
      new ConfigError(
        'Invalid configuration: TABLE_NAME is required; JWT_ISSUER is required; ' +
          'RATE_LIMIT_FREE must be a whole number from 1',
      ),
    );
  });

  it('fails as a ConfigError', () => {
    let thrown: unknown;
    try {
      parseConfig({});
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).name).toBe('ConfigError');
  });

  it('keeps only its own variables, whatever else the environment holds', () => {
    const config = parseConfig({ ...valid, PATH: '/usr/bin', AWS_SECRET_ACCESS_KEY: 'secret' });
    expect(Object.keys(config).sort()).toEqual(Object.keys(parseConfig(valid)).sort());
    expect(config).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
  });

  it('refuses numbers that are not whole, not positive, not numbers, or out of range', () => {
    for (const bad of ['abc', '1.5', '-1', '0', '']) {
      expect(() => parseConfig({ ...valid, RATE_LIMIT_WINDOW_SECONDS: bad }), bad).toThrow(
        /RATE_LIMIT_WINDOW_SECONDS/,
      );
    }
    expect(() => parseConfig({ ...valid, TENANT_CACHE_TTL_SECONDS: '31' })).toThrow(/from 0 to 30/);
    expect(() => parseConfig({ ...valid, TENANT_CACHE_TTL_SECONDS: '-1' })).toThrow(/from 0 to 30/);
    expect(() => parseConfig({ ...valid, REFRESH_TOKEN_TTL_SECONDS: '9007199254740993' })).toThrow(
      /REFRESH_TOKEN_TTL_SECONDS must be a whole number from 1$/,
    );
    expect(parseConfig({ ...valid, TENANT_CACHE_TTL_SECONDS: '30' }).TENANT_CACHE_TTL_SECONDS).toBe(30);
  });

  it('treats an empty DYNAMODB_ENDPOINT as unset (the deployed stage passes ""), and checks a set one', () => {
    expect(parseConfig({ ...valid, DYNAMODB_ENDPOINT: '' }).DYNAMODB_ENDPOINT).toBeUndefined();
    expect(parseConfig({ ...valid, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' }).DYNAMODB_ENDPOINT).toBe(
      'http://127.0.0.1:8000',
    );
    expect(() => parseConfig({ ...valid, DYNAMODB_ENDPOINT: 'not a url' })).toThrow(
      /DYNAMODB_ENDPOINT must be a URL/,
    );
  });

  it('takes the secret-scanning keys from an https URL, GitHub’s by default; http only on the local stage', () => {
    const mirror = 'https://keys.example.com/meta/public_keys/secret_scanning';
    expect(parseConfig({ ...valid, SECRET_SCANNING_KEYS_URL: mirror }).SECRET_SCANNING_KEYS_URL).toBe(mirror);
    const local = 'http://127.0.0.1:4010/meta/public_keys/secret_scanning';
    expect(
      parseConfig({ ...valid, STAGE: 'local', SECRET_SCANNING_KEYS_URL: local }).SECRET_SCANNING_KEYS_URL,
    ).toBe(local);
    // A deployed stage (unset counts as one) fetches the keys that sign revocations over TLS only.
    for (const stage of [{}, { STAGE: 'prod' }, { STAGE: 'dev' }]) {
      expect(
        () => parseConfig({ ...valid, ...stage, SECRET_SCANNING_KEYS_URL: local }),
        JSON.stringify(stage),
      ).toThrow(
        'Invalid configuration: SECRET_SCANNING_KEYS_URL must be an https URL outside the local stage',
      );
    }
    for (const bad of ['', 'not a url', 'ftp://example.com/keys', 'file:///etc/keys']) {
      expect(() => parseConfig({ ...valid, STAGE: 'local', SECRET_SCANNING_KEYS_URL: bad }), bad).toThrow(
        /SECRET_SCANNING_KEYS_URL must be an http\(s\) URL/,
      );
    }
  });

  it('takes exactly one of the JWT key and its SSM parameter name', () => {
    const { JWT_SECRET: _secret, ...withoutSecret } = valid;
    expect(
      parseConfig({ ...withoutSecret, JWT_SECRET_PARAMETER: '/strategy/prod/jwt' }).JWT_SECRET_PARAMETER,
    ).toBe('/strategy/prod/jwt');
    expect(() => parseConfig(withoutSecret)).toThrow(
      new ConfigError(
        'Invalid configuration: set exactly one of JWT_SECRET (local stack, tests) and JWT_SECRET_PARAMETER (AWS).',
      ),
    );
    expect(() => parseConfig({ ...withoutSecret, JWT_SECRET: '' })).toThrow(/exactly one of JWT_SECRET/);
    expect(() => parseConfig({ ...valid, JWT_SECRET_PARAMETER: '/a/b' })).toThrow(
      /exactly one of JWT_SECRET/,
    );
    expect(() => parseConfig({ ...withoutSecret, JWT_SECRET_PARAMETER: 'no-slash' })).toThrow(
      /JWT_SECRET_PARAMETER must be a parameter name/,
    );
    expect(parseConfig({ ...valid, JWT_SECRET_PARAMETER: '' }).JWT_SECRET_PARAMETER).toBeUndefined();
  });

  it('accepts CORS origins as a comma-separated list and nothing else', () => {
    const config = parseConfig({
      ...valid,
      CORS_ALLOWED_ORIGINS: 'https://a.example, http://localhost:3000',
    });
    expect(corsOrigins(config)).toEqual(['https://a.example', 'http://localhost:3000']);
    for (const bad of ['https://a.example/path', 'ftp://a.example', 'https://a.example,']) {
      expect(() => parseConfig({ ...valid, CORS_ALLOWED_ORIGINS: bad }), bad).toThrow(/CORS_ALLOWED_ORIGINS/);
    }
  });
});
