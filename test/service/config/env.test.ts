import { describe, expect, it } from 'vitest';
import { ConfigError, envSchema, parseEnv } from '../../../service/config/env.ts';

describe('parseEnv', () => {
  it('reads every empty variable (as a copied .env.example leaves them) as unset', () => {
    const empty = Object.fromEntries(Object.keys(envSchema.shape).map((k) => [k, '']));
    expect(parseEnv(empty)).toEqual(parseEnv({}));
    expect(parseEnv(empty)).toMatchObject({ HOST: '127.0.0.1', LOG_LEVEL: 'info', MODELS_DIR: 'models', PORT: 3000, BULLMQ_PREFIX: 'formguard' });
  });

  it('names the variable of a bad value', () => {
    expect(() => parseEnv({ LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => parseEnv({ PORT: '70000' })).toThrow(/PORT/);
  });

  it('reads TRUST_PROXY strictly: true/1 and false/0, anything else is an error rather than a quiet false', () => {
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(parseEnv({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(true);
    expect(parseEnv({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    expect(() => parseEnv({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
    expect(() => parseEnv({ TRUST_PROXY: 'TRUE' })).toThrow(/TRUST_PROXY/);
  });
});
