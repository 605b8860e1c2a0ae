import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportLabels } from '../../../../cli/lib/label-files/export-labels.ts';
import { ACME_TOKEN, KEY as API_KEY, GLOBEX_TOKEN } from '../../../support/tenants.ts';
import { consoleApp, JSON_HEADERS, signIn, type ConsoleAppFixture } from '../app-fixture.ts';
import { signInToConsole, withPage } from '../browser.ts';
import { fakeJob } from '../helpers.ts';
import { tempDir } from '../../../support/temp-dir.ts';
import { until } from '../../../support/until.ts';

// Real headless Chromium: spam the model let through (a confident `legitimate`, never queued) reported by a moderator,
// found by its submissionId or by search, and exported like any other label.
let f: ConsoleAppFixture;
let labelsDir: Awaited<ReturnType<typeof tempDir>>;

beforeAll(async () => {
  f = await consoleApp();
  labelsDir = await tempDir('miss-labels');
});

afterAll(async () => {
  await f?.close();
  await labelsDir?.remove();
});

async function exportedLines(): Promise<Record<string, unknown>[]> {
  await exportLabels(f.review.store.exports, labelsDir.dir);
  const out: Record<string, unknown>[] = [];
  for (const name of await readdir(labelsDir.dir)) {
    if (!name.endsWith('.jsonl')) continue;
    for (const line of (await readFile(path.join(labelsDir.dir, name), 'utf8')).split('\n'))
      if (line !== '') out.push(JSON.parse(line) as Record<string, unknown>);
  }
  return out;
}

/** A submission through POST /v1/verify that the model calls legitimate with confidence 0.97: not queued. */
async function verifyMiss(message: string): Promise<string> {
  const res = await f.app.inject({
    method: 'POST',
    url: '/v1/verify',
    headers: { 'content-type': 'application/json', origin: 'https://example.com' },
    payload: { apiKey: API_KEY, formId: 'contact', payload: { email: 'sly@spam.example', message } },
  });
  const { submissionId, status } = res.json<{ submissionId: string; status: string }>();
  expect(status).toBe('legitimate');
  await until(async () => (await f.review.store.items.get('acme', submissionId))?.fieldsKept === true, 'fields kept');
  return submissionId;
}

describe('reporting a miss in Chromium', () => {
  it('finds a miss by its submissionId, labels it spam, and the next labels:export has it', async () => {
    const id = await verifyMiss('Cheap watches replica discount sale');
    expect(await f.review.store.items.counts('acme')).toEqual({ pending: 0, labelled: 0, shed: 0 });
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN, page.locator('#list li.empty'));
      await page.fill('#lookup-id', id);
      await page.press('#lookup-id', 'Enter');
      await page.locator('#detail', { hasText: 'Its fields are kept for a few days: label it to report a miss' }).waitFor();
      expect(await page.locator('#detail').textContent()).toContain('Cheap watches replica discount sale');
      await page.keyboard.press('s');
      await page.locator('#detail', { hasText: 'spam by alice' }).waitFor();
    });
    expect(await f.review.store.labels.getLabel('acme', id)).toMatchObject({
      label: 'spam',
      modelStatus: 'legitimate',
      moderatorId: 'alice',
    });
    const lines = await exportedLines();
    expect(lines.find((l) => l.submissionId === id)).toMatchObject({
      label: 'spam',
      accountId: 'acme',
      formId: 'contact',
      modelStatus: 'legitimate',
      fields: { email: 'sly@spam.example', message: 'Cheap watches replica discount sale' },
    });
  });

  it('finds a miss by search, and another account sees none of it', async () => {
    const id = await verifyMiss('Astonishing marmalade investment returns');
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN, page.locator('#list li'));
      await page.fill('#search', 'marmalade');
      await page.press('#search', 'Enter');
      await page.locator(`#list li[data-id="${id}"]`, { hasText: 'not queued' }).waitFor();
    });
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, GLOBEX_TOKEN, page.locator('#list li'));
      await page.fill('#search', 'marmalade');
      await page.press('#search', 'Enter');
      await page.locator('#list li.empty', { hasText: 'Nothing found.' }).waitFor();
      await page.fill('#lookup-id', id);
      await page.press('#lookup-id', 'Enter');
      await page.locator('#toast', { hasText: 'No such submission' }).waitFor();
    });
    // By the API: globex's moderator can neither read, label nor report acme's submission.
    const cookie = await signIn(f.app, GLOBEX_TOKEN);
    const get = await f.app.inject({ method: 'GET', url: `/review/api/items/${id}`, headers: { cookie } });
    expect(get.statusCode).toBe(404);
    const label = await f.app.inject({
      method: 'POST',
      url: `/review/api/items/${id}/label`,
      headers: { ...JSON_HEADERS, cookie },
      payload: { label: 'spam' },
    });
    expect(label.statusCode).toBe(404);
    const report = await f.app.inject({
      method: 'POST',
      url: `/review/api/items/${id}/report`,
      headers: { ...JSON_HEADERS, cookie },
      payload: { label: 'spam', fields: { message: 'x' } },
    });
    expect(report.statusCode).toBe(404);
    const bulk = await f.app.inject({
      method: 'POST',
      url: '/review/api/bulk/label',
      headers: { ...JSON_HEADERS, cookie },
      payload: { ids: [id], label: 'spam' },
    });
    expect(bulk.json()).toMatchObject({ labelled: 0, skipped: 1 });
    expect(await f.review.store.labels.getLabel('acme', id)).toBeUndefined();
  });

  it('past the keep-fields window says the fields were not kept, and takes pasted fields instead', async () => {
    // Answered five days ago: its verdict is kept for the retention, its fields only three days.
    const old = fakeJob({
      accountId: 'acme',
      status: 'legitimate',
      confidence: 0.97,
      receivedAt: new Date(Date.now() - 5 * 86_400_000).toISOString(),
    });
    await f.review.store.items.remember(old);
    expect(await f.review.store.items.get('acme', old.submissionId)).toMatchObject({
      queued: false,
      fieldsKept: false,
      item: { fields: {} },
    });
    await withPage(f.browser, async (page) => {
      await signInToConsole(page, f.base, ACME_TOKEN, page.locator('#list li'));
      await page.fill('#lookup-id', old.submissionId);
      await page.press('#lookup-id', 'Enter');
      await page.locator('#detail', { hasText: 'its fields were not kept: they are kept 3 day(s) after receipt' }).waitFor();
      await page.fill('#paste-fields', JSON.stringify({ message: 'Pasted: buy followers now' }));
      await page.click('#paste-spam');
      await page.locator('#detail', { hasText: 'spam by alice' }).waitFor();
      expect(await page.locator('#detail').textContent()).toContain('Pasted: buy followers now');
    });
    expect(await f.review.store.labels.getLabel('acme', old.submissionId)).toMatchObject({
      label: 'spam',
      fields: { message: 'Pasted: buy followers now' },
    });
    const lines = await exportedLines();
    expect(lines.find((l) => l.submissionId === old.submissionId)).toMatchObject({
      label: 'spam',
      fields: { message: 'Pasted: buy followers now' },
    });
  });
});
