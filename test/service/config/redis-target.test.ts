import { describe, expect, it } from 'vitest';
import { describeRedis, queuePrefix, redisTarget } from '../../../service/config/redis-target.ts';

const cluster = {
  kind: 'cluster' as const,
  nodes: [
    { host: '10.0.0.5', port: 7000 },
    { host: '::1', port: 7001 },
  ],
};

describe('which Redis the environment names', () => {
  it('is the cluster, the server, or none', () => {
    expect(redisTarget({ REDIS_CLUSTER_NODES: cluster.nodes })).toEqual(cluster);
    expect(redisTarget({ REDIS_URL: 'redis://h:6379/2' })).toEqual({ kind: 'server', url: 'redis://h:6379/2' });
    expect(redisTarget({})).toBeUndefined();
  });

  it('is described by its hosts, never by a password', () => {
    expect(describeRedis({ kind: 'server', url: 'redis://:secret-pw@cache.internal:6380/1' })).toBe('Redis cache.internal:6380');
    expect(describeRedis(cluster)).toBe('Redis Cluster (seeds 10.0.0.5:7000,[::1]:7001)');
  });
});

describe("BullMQ's prefix", () => {
  it('is a hash tag on a cluster (one slot for the whole queue), unchanged on a server or when it has a tag already', () => {
    expect(queuePrefix('formguard', cluster)).toBe('{formguard}');
    expect(queuePrefix('formguard', { kind: 'server', url: 'redis://h:6379' })).toBe('formguard');
    expect(queuePrefix('{fg}', cluster)).toBe('{fg}');
    expect(queuePrefix('app:{fg}:q', cluster)).toBe('app:{fg}:q');
    // An empty tag hashes the whole key: it is no tag, so the prefix is wrapped.
    expect(queuePrefix('a{}b', cluster)).toBe('{a{}b}');
  });
});
