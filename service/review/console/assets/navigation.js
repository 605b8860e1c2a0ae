// Moving through the list: reading a page for the filter, putting an item on screen, turning pages.
import { call } from './api.js';
import { $, toast } from './dom.js';
import { render } from './render.js';
import { showCounts } from './render-list.js';
import { pick } from './selection.js';
import { DAY, PAGE, state } from './state.js';

export async function load(keepIndex = false) {
  const f = state.filter;
  const q = new URLSearchParams({ limit: String(PAGE), offset: String(state.offset), sort: f.sort });
  if (f.form) q.set('form', f.form);
  if (f.status) q.set('status', f.status);
  // The day boxes are the moderator's own days: from the start of the first to the end of the last, in local time.
  if (f.from) q.set('from', new Date(`${f.from}T00:00:00`).toISOString());
  if (f.to) q.set('to', new Date(`${f.to}T23:59:59.999`).toISOString());
  if (f.q) q.set('q', f.q);
  const data = await call('GET', `/list?${q}`);
  state.items = data.rows;
  state.total = data.total;
  state.scanCapped = data.scanCapped === true;
  if (!keepIndex) state.index = 0;
  state.index = Math.max(0, Math.min(state.index, state.items.length - 1));
  const onPage = new Set(state.items.map((x) => x.submissionId));
  for (const id of [...state.selected]) if (!onPage.has(id)) state.selected.delete(id);
  showCounts(data.counts);
  state.summary = data.summary;
  select(state.index);
}

export async function turnPage(step) {
  const next = state.offset + step * PAGE;
  if (next < 0 || (step > 0 && next >= state.total)) return;
  state.offset = next;
  state.selected.clear();
  await load();
}

// A day typed as YYYY-MM-DD (empty: no bound); anything else is said, and the list stays as it is.
export function setDay(which, value) {
  const v = value.trim();
  if (v !== '' && (!DAY.test(v) || Number.isNaN(new Date(`${v}T00:00:00`).getTime()))) {
    toast('Type a day as YYYY-MM-DD');
    return;
  }
  refilter({ [which]: v });
}

// A new filter starts at the first page.
export function refilter(change) {
  Object.assign(state.filter, change);
  state.offset = 0;
  state.selected.clear();
  $('confirm-count').textContent = '';
  $('confirm-go').hidden = true;
  void load().catch((err) => toast(err.message));
}

export function select(i) {
  if (state.items.length === 0) {
    state.current = undefined;
    state.entry = undefined;
    render();
    return;
  }
  state.index = Math.max(0, Math.min(i, state.items.length - 1));
  const item = state.items[state.index];
  state.current = item;
  const l = item.label;
  state.seen = l ? (l.labelId ?? l.labelledAt) : null;
  state.entry = { item, label: l ?? undefined, queued: item.queued, fieldsKept: true };
  render();
}

// Shows one submission as stored now (with its label) and makes it the one the keys act on.
export async function show(id) {
  const entry = await call('GET', `/items/${encodeURIComponent(id)}`);
  state.keepFieldsDays = entry.keepFieldsDays ?? state.keepFieldsDays;
  state.current = entry.item;
  // A label stored before labels had ids is named by its time.
  state.seen = entry.label ? (entry.label.labelId ?? entry.label.labelledAt) : null;
  state.entry = entry;
  render();
  return entry;
}

export async function lookup() {
  const id = $('lookup-id').value.trim();
  if (!id) return;
  try {
    await show(id);
    // The item on screen is the one the keys act on: take the focus out of the box, so "s" labels it instead of
    // typing an s ("/" comes back to the box).
    $('detail').focus();
  } catch (err) {
    toast(err.message);
  }
}

// Shift+j/k: the selection grows (or shrinks) with the move, as a shift-click would.
export function extend(step) {
  const from = state.index;
  if (!state.selected.has(state.current?.submissionId)) pick(from, true);
  select(from + step);
  pick(state.index, true);
}
