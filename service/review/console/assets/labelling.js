// Labels, bulk labels, confirm-all and undo: what s / h / u and the buttons do.
import { call } from './api.js';
import { $, toast } from './dom.js';
import { load, select, show } from './navigation.js';
import { render } from './render.js';
import { showCounts } from './render-list.js';
import { state } from './state.js';

// Label and undo run one after another: a key pressed while the last label's page refill is in flight waits for it
// instead of being dropped (a moderator's quick "h" then "u" did nothing).
let actions = Promise.resolve();
function inTurn(action) {
  const next = actions.then(action);
  actions = next.catch(() => undefined);
  return next;
}

export function mark(label) {
  return inTurn(() => markNow(label));
}

export function undo() {
  return inTurn(undoNow);
}

async function markNow(label) {
  if (state.selected.size > 0) return bulkMark(label);
  const item = state.current;
  if (!item || state.busy) return;
  state.busy = true;
  try {
    const r = await call('POST', `/items/${encodeURIComponent(item.submissionId)}/label`, { label, expected: state.seen });
    showCounts(r.counts);
    toast(r.labelled > 1 ? `Labelled ${r.labelled} similar ${label} · u to undo` : `Labelled ${label} · u to undo`);
    const at = state.items.findIndex((x) => x.submissionId === item.submissionId);
    if (at >= 0 && state.filter.q) {
      // Search results stay listed with their new label: move on to the next one.
      await load(true);
      select(at + 1);
    } else if (at >= 0) {
      // The next item moves up at once; then the page refills from the server (and the counts above it are new),
      // keeping whichever item is on screen by then.
      state.items = state.items.filter((_, n) => n !== at);
      state.total = Math.max(0, state.total - 1);
      select(at);
      const keep = state.current?.submissionId;
      await load(true);
      const again = state.items.findIndex((x) => x.submissionId === keep);
      if (again >= 0) select(again);
    } else {
      // A looked-up item: stay on it with its new label, so the next key acts on what is on screen.
      await show(item.submissionId);
    }
  } catch (err) {
    toast(err.message);
    if (err.status === 409) {
      // Labelled by someone else meanwhile: take it off the pending list and show it as it is now.
      state.items = state.items.filter((x) => x.submissionId !== item.submissionId);
      render();
      await show(item.submissionId).catch(() => undefined);
    }
  } finally {
    state.busy = false;
  }
}

async function undoNow() {
  if (state.busy) return;
  state.busy = true;
  try {
    const r = await call('POST', '/undo', {});
    showCounts(r.counts);
    if (r.kind === 'relabelled') {
      toast(`Not undone: ${r.by} relabelled it since`);
      return;
    }
    if (r.kind === 'undone-bulk') {
      await load(true);
      toast(`Bulk label undone: ${r.undone} item(s) back${r.relabelled > 0 ? `; ${r.relabelled} relabelled since stay` : ''}`);
      return;
    }
    if (r.kind !== 'undone') {
      toast('Nothing to undo');
      return;
    }
    await load();
    const at = state.items.findIndex((x) => x.submissionId === r.submissionId);
    if (at >= 0) {
      select(at);
      toast('Label undone');
      return;
    }
    // Undoing a relabel puts the earlier label back: show the item with it.
    const entry = await show(r.submissionId);
    toast(entry.label ? `Label undone: back to ${entry.label.label} by ${entry.label.moderatorId}` : 'Label undone');
  } catch (err) {
    toast(err.message);
  } finally {
    state.busy = false;
  }
}

async function bulkMark(label) {
  const ids = [...state.selected];
  if (ids.length === 0 || state.busy) return;
  state.busy = true;
  try {
    const r = await call('POST', '/bulk/label', { ids, label });
    state.selected.clear();
    showCounts(r.counts);
    await load(true);
    toast(`Labelled ${r.labelled} ${label}${r.skipped > 0 ? ` (${r.skipped} labelled meanwhile, left as they were)` : ''} · u to undo`);
  } catch (err) {
    toast(err.message);
  } finally {
    state.busy = false;
    render();
  }
}

function confirmQuery() {
  const min = Number($('confirm-min').value);
  if (!(min >= 0 && min <= 1)) throw new Error('A confidence between 0 and 1');
  return { min, ...(state.filter.form ? { form: state.filter.form } : {}) };
}

// The preview says what the confirm takes; the confirm button names that count, so nothing is labelled unseen.
export async function confirmPreview() {
  try {
    const q = confirmQuery();
    const r = await call('GET', `/bulk/confirm?${new URLSearchParams({ min: String(q.min), ...(q.form ? { form: q.form } : {}) })}`);
    const where = q.form ? `form ${q.form}` : 'all forms';
    $('confirm-count').textContent =
      r.matching === 0
        ? `No pending spam verdict at or above ${q.min} (${where}).`
        : `${r.matching.toLocaleString()} pending spam verdict(s) at or above ${q.min} (${where})${r.takes < r.matching ? `; one confirm takes the ${r.takes.toLocaleString()} most confident` : ''}.`;
    const go = $('confirm-go');
    go.hidden = r.takes === 0;
    go.textContent = `Confirm ${r.takes.toLocaleString()} as spam`;
    go.dataset.min = String(q.min);
    go.dataset.form = q.form ?? '';
  } catch (err) {
    toast(err.message);
  }
}

export async function confirmAll() {
  const go = $('confirm-go');
  if (state.busy) return;
  state.busy = true;
  try {
    const body = { min: Number(go.dataset.min), ...(go.dataset.form ? { form: go.dataset.form } : {}) };
    const r = await call('POST', '/bulk/confirm', body);
    go.hidden = true;
    $('confirm-count').textContent = '';
    showCounts(r.counts);
    await load();
    toast(`Confirmed ${r.labelled} as spam · u to undo`);
  } catch (err) {
    toast(err.message);
  } finally {
    state.busy = false;
  }
}

// A miss whose fields were not kept, reported with the fields the moderator pasted (a JSON object) and its label.
export async function report(submissionId, label, pasted) {
  let fields;
  try {
    fields = JSON.parse(pasted);
  } catch {
    toast('Paste the fields as a JSON object, e.g. {"message": "…"}');
    return;
  }
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) {
    toast('Paste the fields as a JSON object, e.g. {"message": "…"}');
    return;
  }
  try {
    const r = await call('POST', `/items/${encodeURIComponent(submissionId)}/report`, { label, fields });
    showCounts(r.counts);
    toast(`Reported as ${label} · u to undo`);
    await show(submissionId);
  } catch (err) {
    toast(err.message);
  }
}
