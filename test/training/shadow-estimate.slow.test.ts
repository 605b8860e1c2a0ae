import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ShadowPair } from '../../core/classifier/shadow-store.ts';
import { seededRandom } from '../../training/data/random.ts';
import { labelledLines, roleFigures, weightedRatio, wilson, type LabelledPair } from '../../training/lifecycle/shadow-estimate.ts';
import { reviewDecision } from '../../service/review/intake/policy.ts';
import type { ReviewJob } from '../../service/review/intake/job-schema.ts';

/**
 * Traffic with a known skew: every spam verdict (and every disagreement) is queued, 1% of the rest is sampled, by the
 * service's own review policy; moderators label everything queued. The true rates are known from the whole traffic.
 */
function traffic(n: number, seed: number) {
  const random = seededRandom(seed);
  const all: LabelledPair[] = [];
  const queued: LabelledPair[] = [];
  for (let i = 0; i < n; i++) {
    const label = random() < 0.2 ? 'spam' : 'legitimate';
    const activeSpam = random() < (label === 'spam' ? 0.92 : 0.05);
    const shadowSpam = random() < (label === 'spam' ? 0.9 : 0.03);
    const score = (version: string, spam: boolean) => ({
      version,
      status: spam ? ('spam' as const) : ('legitimate' as const),
      spamProbability: spam ? 0.9 : 0.1,
    });
    const pair: ShadowPair = {
      submissionId: randomUUID(),
      accountId: 'acme',
      formId: 'contact',
      receivedAt: '2026-11-28T00:00:00.000Z',
      active: score('A', activeSpam),
      shadow: score('B', shadowSpam),
    };
    const job = {
      verdict: { status: pair.active.status, confidence: 0.9 },
      shadow: { status: pair.shadow.status },
    } as unknown as ReviewJob;
    const q = reviewDecision(job, { band: 0, sampleRate: 0.01 }, random);
    all.push({ pair, label });
    if (q !== undefined) queued.push({ pair: { ...pair, queued: q }, label });
  }
  return { all, queued };
}

function trueFpr(items: readonly LabelledPair[], role: 'active' | 'shadow'): number {
  const legit = items.filter((i) => i.label === 'legitimate');
  return legit.filter((i) => i.pair[role].status === 'spam').length / legit.length;
}

describe('shadow-report figures estimate the traffic, not the queue', () => {
  const { all, queued } = traffic(30_000, 7);

  it("the FPR estimate from a skewed queue (all spam verdicts, 1% of the rest) has the traffic's true FPR inside its interval", () => {
    const sample = queued.filter((q) => q.pair.queued?.reason === 'sample').length;
    expect(sample).toBeGreaterThan(150);
    for (const role of ['active', 'shadow'] as const) {
      const truth = trueFpr(all, role);
      const est = roleFigures(queued, role).fpr;
      expect(est).not.toBeNull();
      expect(truth).toBeGreaterThanOrEqual(est?.low as number);
      expect(truth).toBeLessThanOrEqual(est?.high as number);
      // An interval that says something: a few points wide at most.
      expect((est?.high as number) - (est?.low as number)).toBeLessThan(0.05);
      // The figure the report printed before (every label counted once) is far off, outside that interval.
      const naive = trueFpr(queued, role);
      expect(naive < (est?.low as number) || naive > (est?.high as number)).toBe(true);
    }
  });

  it('a 95% interval: over 40 such traffics it holds the true FPR about 38 times (at least 34)', () => {
    const covered = { active: 0, shadow: 0 };
    for (let seed = 100; seed < 140; seed++) {
      const t = traffic(10_000, seed);
      for (const role of ['active', 'shadow'] as const) {
        const truth = trueFpr(t.all, role);
        const est = roleFigures(t.queued, role).fpr;
        if (est !== null && truth >= est.low && truth <= est.high) covered[role]++;
      }
    }
    // Binomial(40, 0.95): fewer than 34 happens about once in 200 runs of a correct interval.
    expect(covered.active).toBeGreaterThanOrEqual(34);
    expect(covered.shadow).toBeGreaterThanOrEqual(34);
  });

  it('prints the sample size, the intervals, and the spam and disputed items apart', () => {
    const text = labelledLines(queued).join('\n');
    const sample = queued.filter((q) => q.pair.queued?.reason === 'sample').length;
    expect(text).toContain(`the random sample is ${sample} labels`);
    expect(text).toMatch(/^ {6}active A +[\d.]+% \[[\d.]+%, [\d.]+%\] +[\d.]+% \[[\d.]+%, [\d.]+%\] +[\d.]+% \[[\d.]+%, [\d.]+%\]$/m);
    expect(text).toMatch(/queued as spam \(\d+, not a sample of the traffic\)/);
    expect(text).toMatch(/queued as disagreement \(\d+, not a sample of the traffic\)/);
  });

  it('labels queued before the reason was kept are left out of the estimate and counted', () => {
    const old = queued.slice(0, 5).map(({ pair: { queued: _q, ...pair }, label }) => ({ pair, label }));
    const text = labelledLines([...old, ...queued.slice(5)]).join('\n');
    expect(text).toContain('reason not recorded (queued before it was) 5');
    expect(text).toContain('(5 labels without a recorded reason are left out of the estimate)');
  });
});

describe('the interval arithmetic', () => {
  it("Wilson's interval: 0 of 10 and 5 of 10", () => {
    expect(wilson(0, 10).low).toBe(0);
    expect(wilson(0, 10).high).toBeCloseTo(0.2775, 3);
    expect(wilson(0.5, 10).low).toBeCloseTo(0.2366, 3);
  });

  it('with every chance 1 the weighted ratio is the plain one with Wilson at n', () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ x: true, y: i < 5, probability: 1 }));
    const r = weightedRatio(items);
    expect(r?.value).toBe(0.5);
    expect(r?.low).toBeCloseTo(wilson(0.5, 10).low, 10);
  });
});
