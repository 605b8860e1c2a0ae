import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, envSchema, parseEnv } from '../../../service/config/env.ts';

describe('parseEnv', () => {
  it('reads every empty variable (as a copied .env.example leaves them) as unset', () => {
    const empty = Object.fromEntries(Object.keys(envSchema.shape).map((k) => [k, '']));
    expect(parseEnv(empty)).toEqual(parseEnv({}));
    expect(parseEnv(empty)).toMatchObject({
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      MODELS_DIR: 'models',
      PORT: 3000,
      BULLMQ_PREFIX: 'formguard',
    });
  });

  it('names the variable of a bad value', () => {
    expect(() => parseEnv({ LOG_LEVEL: 'loud' })).toThrow(ConfigError);
    expect(() => parseEnv({ PORT: '70000' })).toThrow(/PORT/);
  });

  it('reads a number in decimals only; spaces alone mean unset, not 0', () => {
    expect(parseEnv({ PORT: ' ', REQUEST_TIMEOUT_MS: ' ', SHUTDOWN_GRACE_MS: '\t' })).toMatchObject({
      PORT: 3000,
      REQUEST_TIMEOUT_MS: 30_000,
      SHUTDOWN_GRACE_MS: 10_000,
    });
    expect(parseEnv({ HOST: ' ', TRUST_PROXY: ' ', LOG_LEVEL: '  ' })).toMatchObject({
      HOST: '127.0.0.1',
      TRUST_PROXY: false,
      LOG_LEVEL: 'info',
    });
    expect(parseEnv({ PORT: ' 3001 ', REVIEW_BAND: '0.5' })).toMatchObject({ PORT: 3001, REVIEW_BAND: 0.5 });
    for (const PORT of ['0x10', 'abc', '3000abc', '1e3', 'Infinity'])
      expect(() => parseEnv({ PORT })).toThrow(/PORT: must be a decimal number/);
  });

  it('takes a redis:// or rediss:// REDIS_URL whose path is a database number, and says what is wrong otherwise', () => {
    for (const url of [
      'redis://127.0.0.1:6379',
      'redis://127.0.0.1:6379/',
      'redis://:pw@127.0.0.1:6379/3',
      'rediss://cache.example:6380/0',
    ]) {
      expect(parseEnv({ REDIS_URL: url }).REDIS_URL).toBe(url);
    }
    for (const url of ['http://127.0.0.1:6379', 'localhost:6379', '127.0.0.1:6379'])
      expect(() => parseEnv({ REDIS_URL: url })).toThrow(/REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/);
    for (const url of ['redis://127.0.0.1:6379/abc', 'redis://127.0.0.1:6379/0/x'])
      expect(() => parseEnv({ REDIS_URL: url })).toThrow(/REDIS_URL: the path, if any, must be a database number/);
    // The message never repeats the URL, which may hold a password.
    expect(() => parseEnv({ REDIS_URL: 'http://:secret-pw@host:6379' })).toThrow(/^(?![\s\S]*secret-pw)/);
  });

  it('serves /metrics and /docs on ADMIN_PORT (default 9464 on ADMIN_HOST 127.0.0.1), off, never on PORT', () => {
    expect(parseEnv({})).toMatchObject({ ADMIN_PORT: 9464, ADMIN_HOST: '127.0.0.1' });
    expect(parseEnv({ ADMIN_PORT: ' 9100 ', ADMIN_HOST: '0.0.0.0' })).toMatchObject({ ADMIN_PORT: 9100, ADMIN_HOST: '0.0.0.0' });
    expect(parseEnv({ ADMIN_PORT: 'off' }).ADMIN_PORT).toBe('off');
    // 0 picks a free port, as PORT=0 does; so both may be 0.
    expect(parseEnv({ ADMIN_PORT: '0', PORT: '0' })).toMatchObject({ ADMIN_PORT: 0, PORT: 0 });
    for (const ADMIN_PORT of ['70000', 'no', 'OFF', '0x10', '-1', '1.5'])
      expect(() => parseEnv({ ADMIN_PORT }), ADMIN_PORT).toThrow(/ADMIN_PORT: ".*": a port number \(0 to 65535\), or off/);
    // A number is read as PORT reads one, so the two settings never disagree about what a port is.
    for (const port of ['+9100', ' 09100 ', '\t9100'])
      expect(parseEnv({ ADMIN_PORT: port, PORT: '3000' }).ADMIN_PORT, port).toBe(parseEnv({ PORT: port }).PORT);
    expect(() => parseEnv({ PORT: '8080', ADMIN_PORT: '8080' })).toThrow(/ADMIN_PORT: must differ from PORT \(8080\)/);
    expect(() => parseEnv({ ADMIN_PORT: '3000' })).toThrow(/ADMIN_PORT: must differ from PORT \(3000\)/);
  });

  it('reads TRUST_PROXY strictly: true/1 and false/0, anything else is an error rather than a quiet false', () => {
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(parseEnv({ TRUST_PROXY: '1' }).TRUST_PROXY).toBe(true);
    expect(parseEnv({ TRUST_PROXY: '0' }).TRUST_PROXY).toBe(false);
    expect(() => parseEnv({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
    expect(() => parseEnv({ TRUST_PROXY: 'TRUE' })).toThrow(/TRUST_PROXY/);
  });

  it('takes REDIS_CLUSTER_NODES as host:port seeds, says what is wrong with a bad one, and refuses it beside REDIS_URL', () => {
    expect(parseEnv({}).REDIS_CLUSTER_NODES).toBeUndefined();
    expect(parseEnv({ REDIS_CLUSTER_NODES: ' 10.0.0.5:7000, redis-a.internal:7001 ,[::1]:7002' }).REDIS_CLUSTER_NODES).toEqual([
      { host: '10.0.0.5', port: 7000 },
      { host: 'redis-a.internal', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
    expect(() => parseEnv({ REDIS_CLUSTER_NODES: '10.0.0.5' })).toThrow(
      /REDIS_CLUSTER_NODES: "10\.0\.0\.5" is not host:port: list the cluster's seed nodes as host:port, separated by commas/,
    );
    expect(() => parseEnv({ REDIS_CLUSTER_NODES: '10.0.0.5:7000,' })).toThrow(/REDIS_CLUSTER_NODES: an empty entry \(a stray comma\?\)/);
    expect(() => parseEnv({ REDIS_CLUSTER_NODES: 'a:0' })).toThrow(/"a:0" is not host:port/);
    expect(() => parseEnv({ REDIS_CLUSTER_NODES: 'a:70000' })).toThrow(/"a:70000" is not host:port/);
    // A URL is named as one, without its password.
    expect(() => parseEnv({ REDIS_CLUSTER_NODES: 'redis://:secret-pw@10.0.0.5:7000' })).toThrow(
      /^(?![\s\S]*secret-pw)[\s\S]*is a URL: list the cluster's seed nodes as host:port/,
    );
    expect(() => parseEnv({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '10.0.0.5:7000' })).toThrow(
      /REDIS_CLUSTER_NODES: set REDIS_URL \(one Redis server\) or REDIS_CLUSTER_NODES \(a Redis Cluster\), not both/,
    );
  });

  it('reads WORKERS as a count or auto, and refuses more than one without Redis unless per-worker limits are accepted', () => {
    expect(parseEnv({}).WORKERS).toBe(1);
    expect(parseEnv({ WORKERS: 'auto', ALLOW_PER_WORKER_LIMITS: 'true' }).WORKERS).toBe(availableParallelism());
    expect(parseEnv({ WORKERS: ' 4 ', REDIS_URL: 'redis://127.0.0.1:6379' }).WORKERS).toBe(4);
    expect(parseEnv({ WORKERS: '3', REDIS_CLUSTER_NODES: '10.0.0.5:7000' }).WORKERS).toBe(3);
    for (const WORKERS of ['0', '-1', '1.5', 'all', 'AUTO'])
      expect(() => parseEnv({ WORKERS }), WORKERS).toThrow(/WORKERS: ".*": a whole number of service processes \(1 or more\), or auto/);
    expect(() => parseEnv({ WORKERS: '2' })).toThrow(
      /WORKERS: 2 workers without Redis would each count rate limits on their own, so an account could send up to 2 times its limit.*ALLOW_PER_WORKER_LIMITS=true/,
    );
    expect(parseEnv({ WORKERS: '2', ALLOW_PER_WORKER_LIMITS: 'true' })).toMatchObject({ WORKERS: 2, ALLOW_PER_WORKER_LIMITS: true });
    expect(() => parseEnv({ ALLOW_PER_WORKER_LIMITS: 'yes' })).toThrow(/ALLOW_PER_WORKER_LIMITS: must be true or false/);
  });
});
