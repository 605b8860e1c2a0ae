// Experiment-only entry of bench/experiments/redis-decompose.ts: the service (service/server.ts) with the review
// store's writes switched off by FG_DECOMPOSE (never a setting of the service): `limiter` stores neither flagged
// submissions nor look-up verdicts, `lookup` keeps the look-up writes only, anything else changes nothing.
import { ItemStore, type IngestResult } from '../../service/review/store/items.ts';

const mode = process.env.FG_DECOMPOSE;
if (mode === 'limiter' || mode === 'lookup') {
  ItemStore.prototype.ingestMany = (jobs) => Promise.resolve(jobs.map((): IngestResult => 'stored'));
}
if (mode === 'limiter') {
  ItemStore.prototype.remember = () => Promise.resolve();
}
await import('../../service/server.ts');
