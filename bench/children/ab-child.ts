// One side of `npm run bench -- --ab <rev>` (see bench/lib/ab.ts): loads the classifier and the feature extractor
// from the core/ folder it is given (a revision's copy or the working tree's), the newest model of the models folder it is given, and times
// them when asked. It loads nothing else that could slow V8's string code (no ioredis, no autocannon).
import { createHash } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as LoadModule from '../../core/classifier/load.ts';
import type * as FeaturesModule from '../../core/features/index.ts';
import { AB_KINDS, type AbKind, type AbReply, type AbRequest } from '../lib/ab-process.ts';
import { realisticBodies, worstCaseBody } from '../lib/bodies.ts';
import { median } from '../lib/stats.ts';

const [coreDir, repoRoot, mode, modelsDir] = process.argv.slice(2) as [string, string, string, string];
const quick = mode === 'quick';
// The revision's own modules, typed as this tree's: the A/B needs loadClassifier and FeatureExtractor to keep their shape.
const load = (await import(pathToFileURL(path.join(coreDir, 'classifier/load.ts')).href)) as typeof LoadModule;
const features = (await import(pathToFileURL(path.join(coreDir, 'features/index.ts')).href)) as typeof FeaturesModule;
const classifier = await load.loadClassifier({ modelsDir });
const extractor = new features.FeatureExtractor(classifier.manifest.featureSettings);
const bodies = realisticBodies(repoRoot).map((b) => b.fields);
const worst = worstCaseBody(repoRoot).fields;
const samples: Record<AbKind, number[]> = { extract: [], classify: [], extract64k: [] };
let sink = 0;

function timeExtract(fields: Record<string, unknown>): number {
  const t0 = process.hrtime.bigint();
  const f = extractor.extract(fields);
  const dt = Number(process.hrtime.bigint() - t0);
  sink += f.count;
  return dt;
}

function timeClassify(fields: Record<string, unknown>): number {
  const t0 = process.hrtime.bigint();
  const v = classifier.classify(fields);
  const dt = Number(process.hrtime.bigint() - t0);
  sink += v.reasoning.length;
  return dt;
}

// Whole passes over the bodies, the two calls alternating which goes first.
function pass(p: number, keep: boolean): Record<AbKind, number[]> {
  const mine: Record<AbKind, number[]> = { extract: [], classify: [], extract64k: [] };
  for (const kind of p % 2 === 0 ? (['extract', 'classify'] as const) : (['classify', 'extract'] as const)) {
    const time = kind === 'extract' ? timeExtract : timeClassify;
    for (const fields of bodies) {
      const dt = time(fields);
      if (keep) mine[kind].push(dt);
    }
  }
  for (let i = 0; i < 5; i++) {
    const dt = timeExtract(worst);
    if (keep) mine.extract64k.push(dt);
  }
  return mine;
}

function digest(): string {
  const h = createHash('sha256');
  for (const fields of [...bodies, worst]) {
    const f = extractor.extract(fields);
    for (const a of [f.indices, f.values, f.kinds, f.fields, f.starts, f.ends])
      h.update(new Uint8Array(a.buffer, a.byteOffset, f.count * a.BYTES_PER_ELEMENT));
    h.update(JSON.stringify({ texts: f.texts, roles: f.roles, structure: f.structure, facts: f.facts }));
    h.update(JSON.stringify(classifier.classify(fields)));
  }
  return h.digest('hex');
}

const send = (m: AbReply) => process.send?.(m);
process.on('message', (m: AbRequest) => {
  if (m.cmd === 'digest') send({ cmd: 'digest', sha256: digest() });
  else if (m.cmd === 'warm') {
    for (let p = 0; p < (quick ? 3 : 12); p++) pass(p, false);
    send({ cmd: 'warm' });
  } else if (m.cmd === 'chunk') {
    const chunk: Record<AbKind, number[]> = { extract: [], classify: [], extract64k: [] };
    for (let p = 0; p < (quick ? 2 : 4); p++) {
      const mine = pass(p, true);
      for (const k of AB_KINDS) chunk[k].push(...mine[k]);
    }
    for (const k of AB_KINDS) samples[k].push(...chunk[k]);
    const round = (ns: number[]) => ({ medianUs: median(ns) / 1000, minUs: Math.min(...ns) / 1000 });
    send({ cmd: 'chunk', round: { extract: round(chunk.extract), classify: round(chunk.classify), extract64k: round(chunk.extract64k) } });
  } else {
    if (sink < 0) throw new Error('unreachable');
    const us = (ns: number[]) => ns.map((x) => x / 1000);
    send({
      cmd: 'result',
      samplesUs: { extract: us(samples.extract), classify: us(samples.classify), extract64k: us(samples.extract64k) },
    });
  }
});
send({ cmd: 'ready', modelVersion: classifier.modelVersion, featureVersion: classifier.featureVersion, bodies: bodies.length });
