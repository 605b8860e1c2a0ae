import { describe, expect, it } from 'vitest';
import { parseEnv } from '../../../service/config/env.ts';
import { chooseTenantsFile, EXAMPLE_TENANTS_FILE } from '../../../service/config/tenants-file.ts';
import { sha256Hex } from '../../../service/tenants/key.ts';
import { loadTenantsFile } from '../../../service/tenants/load.ts';

describe('tenants file choice', () => {
  it('uses TENANTS_FILE when set', () => {
    expect(chooseTenantsFile({ TENANTS_FILE: '/etc/formguard/tenants.json', NODE_ENV: 'production' })).toEqual({
      file: '/etc/formguard/tenants.json',
      example: false,
    });
  });

  it('falls back to the example file outside production', () => {
    expect(chooseTenantsFile({ TENANTS_FILE: undefined, NODE_ENV: 'development' })).toEqual({ file: EXAMPLE_TENANTS_FILE, example: true });
  });

  it('refuses to start in production without TENANTS_FILE, naming the variable', () => {
    expect(() => chooseTenantsFile({ TENANTS_FILE: undefined, NODE_ENV: 'production' })).toThrow(
      /TENANTS_FILE: required when NODE_ENV=production/,
    );
  });

  it('the example file is valid and holds the documented demo key for form "contact"', async () => {
    const { tenants } = await loadTenantsFile(EXAMPLE_TENANTS_FILE);
    expect(tenants.keys.get(sha256Hex('demo-key-change-me'))?.accountId).toBe('demo');
    expect(tenants.forms.get('contact')?.accountId).toBe('demo');
    const allows = tenants.forms.get('contact')?.allowsOrigin;
    for (const host of ['localhost', '127.0.0.1', 'example.com']) expect(allows?.({ host, port: '3000' })).toBe(true);
  });
});

describe('environment', () => {
  it('names the bad variable', () => {
    expect(() => parseEnv({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => parseEnv({ KEY_FAILURE_MAX: '0' })).toThrow(/KEY_FAILURE_MAX/);
  });

  it('has the documented defaults', () => {
    const env = parseEnv({});
    expect(env).toMatchObject({
      PORT: 3000,
      HOST: '127.0.0.1',
      BODY_LIMIT: 65536,
      MODELS_DIR: 'models',
      KEY_FAILURE_MAX: 20,
      KEY_FAILURE_WINDOW_SECONDS: 60,
    });
  });
});
