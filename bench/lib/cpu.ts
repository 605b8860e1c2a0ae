import { readFileSync } from 'node:fs';
import os from 'node:os';

// Linux's USER_HZ: 100 on every mainstream architecture.
const CLOCK_TICKS = os.platform() === 'linux' ? 100 : NaN;

/**
 * A process's user + system CPU time so far, in µs (/proc/<pid>/stat, clock ticks). Per request, it is steadier
 * than req/s on a shared host: other tenants take wall time from the service, not CPU time.
 */
export function cpuMicros(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / CLOCK_TICKS;
}
