// Moderator console. Everything a submission holds is attacker-written: it is only ever put in the page
// through textContent / createElement, never as HTML, and the CSP allows no inline script at all.
'use strict';

const API = '/review/api';
// seen: the label on screen for the current item (null: none) by its labelId, sent with a label so that a label
// someone else gave meanwhile, even in the same millisecond, is reported (409) instead of silently replaced.
const state = { items: [], index: 0, current: undefined, seen: null, filter: { form: '', status: '' }, busy: false };
const $ = (id) => document.getElementById(id);

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'className') node.className = v;
    else if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child);
  return node;
}

async function call(method, path, body) {
  const init = { method, credentials: 'same-origin', headers: {} };
  if (method !== 'GET') {
    init.headers['content-type'] = 'application/json';
    init.headers['x-formguard-review'] = '1';
    init.body = JSON.stringify(body ?? {});
  }
  const res = await fetch(API + path, init);
  let data = {};
  try { data = await res.json(); } catch { /* empty body */ }
  if (res.status === 401 && path !== '/session') { showSignIn(); }
  if (!res.ok) throw Object.assign(new Error(data.error || 'Request failed'), { status: res.status, data });
  return data;
}

let toastTimer;
function toast(message) {
  const t = $('toast');
  t.textContent = message;
  t.classList.add('show');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => t.classList.remove('show'), 2500);
}

function showSignIn() {
  // Forget the last session's screen: its submissions must not stay in the page, and its form filter must not
  // hide the next moderator's items (another account's forms are not in the list).
  Object.assign(state, { items: [], index: 0, current: undefined, seen: null, filter: { form: '', status: '' } });
  $('list').replaceChildren();
  $('detail').replaceChildren();
  const forms = $('filter-form');
  while (forms.options.length > 1) forms.remove(1);
  forms.value = '';
  $('filter-status').value = '';
  $('lookup-id').value = '';
  $('console').hidden = true;
  $('sign-out').hidden = true;
  $('who').textContent = '';
  $('counts').textContent = '';
  $('sign-in').hidden = false;
  $('token').focus();
}

function showCounts(counts) {
  $('counts').textContent = `${counts.pending} pending · ${counts.labelled} labelled`;
}

async function start() {
  let me;
  try {
    me = await call('GET', '/me');
  } catch (err) {
    showSignIn();
    // Only a 401 means "signed out"; anything else (the store down: 503) is said, so nobody retypes a token for it.
    if (err.status !== 401) $('sign-in-error').textContent = `${err.message} Your session is kept: reload the page once it is back.`;
    return;
  }
  $('sign-in').hidden = true;
  $('console').hidden = false;
  $('sign-out').hidden = false;
  $('who').textContent = `${me.moderatorId} · ${me.accountId}`;
  const select = $('filter-form');
  while (select.options.length > 1) select.remove(1);
  for (const form of me.forms) select.append(el('option', { value: form, text: form }));
  select.value = state.filter.form;
  showCounts(me.counts);
  await load();
  // Where the work starts: the keys act on the list, Tab goes on to the label buttons. (The sign-in form the focus
  // was in is hidden now; left alone, the focus would fall to the page and the first Tab skip the filters and list.)
  $('list').focus();
}

async function load(keepIndex = false) {
  const q = new URLSearchParams({ limit: '100' });
  if (state.filter.form) q.set('form', state.filter.form);
  if (state.filter.status) q.set('status', state.filter.status);
  const data = await call('GET', `/items?${q}`);
  state.items = data.items;
  if (!keepIndex) state.index = 0;
  state.index = Math.max(0, Math.min(state.index, state.items.length - 1));
  renderList();
  select(state.index);
}

// Bidirectional controls (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI) reorder what follows them on screen: a
// submitted "\u202Egnp.exe" shows as "exe.png". They are shown as what they are, so the text on screen is the
// text that was sent; every submitted string goes through here.
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/g;
function visible(text) {
  return String(text).replace(BIDI_CONTROLS, (c) => `⟦U+${c.codePointAt(0).toString(16).toUpperCase()}⟧`);
}

function preview(fields) {
  for (const v of Object.values(fields)) {
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    if (s && s.trim()) return visible(s.trim().slice(0, 140));
  }
  return '(no fields)';
}

function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

function disagrees(item) {
  return Boolean(item.shadow) && item.shadow.status !== item.verdict.status;
}

function badge(status) {
  return el('span', { className: `badge ${status === 'spam' ? 'spam' : 'legitimate'}`, text: status });
}

function renderList() {
  const list = $('list');
  list.replaceChildren();
  list.removeAttribute('aria-activedescendant');
  if (state.items.length === 0) {
    list.append(el('li', { className: 'empty', role: 'option', 'aria-disabled': 'true', 'aria-selected': 'false', text: 'Nothing pending. Well done.' }));
    return;
  }
  state.items.forEach((item, i) => {
    // The list keeps the focus (a listbox); aria-activedescendant names the current option by this id.
    const li = el('li', { id: `item-${item.submissionId}`, 'data-id': item.submissionId, role: 'option', 'aria-selected': 'false' },
      el('span', { className: 'meta' }, badge(item.verdict.status),
        el('span', { text: `${Math.round(item.verdict.confidence * 100)}% sure` }),
        ...(disagrees(item) ? [el('span', { className: 'badge disagreement', text: `shadow: ${item.shadow.status}` })] : []),
        el('span', { text: item.formId }),
        el('span', { text: when(item.receivedAt) })),
      el('span', { className: 'preview', dir: 'auto', text: preview(item.fields) }));
    li.addEventListener('click', () => select(i));
    list.append(li);
  });
}

function select(i) {
  if (state.items.length === 0) { state.current = undefined; renderDetail(undefined); return; }
  state.index = Math.max(0, Math.min(i, state.items.length - 1));
  const list = $('list');
  const nodes = list.children;
  for (let n = 0; n < nodes.length; n++) nodes[n].setAttribute('aria-selected', n === state.index ? 'true' : 'false');
  const current = nodes[state.index];
  if (current) {
    list.setAttribute('aria-activedescendant', current.id);
    current.scrollIntoView({ block: 'nearest' });
  }
  state.current = state.items[state.index];
  state.seen = null;
  renderDetail({ item: state.current, label: undefined });
}

function renderDetail(entry) {
  const detail = $('detail');
  detail.replaceChildren();
  if (entry === undefined) {
    detail.append(el('p', { className: 'note', text: 'Select an item, or look one up by its submissionId.' }));
    return;
  }
  const { item, label, queued } = entry;
  const v = item.verdict;
  detail.append(
    el('h2', {}, el('span', { text: 'Model says' }), badge(v.status), el('span', { text: `${Math.round(v.confidence * 100)}% confident` })),
    el('p', { className: 'reasoning', text: visible(v.reasoning) }),
  );
  // A shadow model's verdict: the caller was answered by the active model; a disagreement is why the item is here.
  if (item.shadow) {
    detail.append(el('p', { className: disagrees(item) ? 'shadow-verdict disagreement' : 'shadow-verdict' },
      el('span', { text: disagrees(item) ? 'Models disagree. Shadow model says' : 'Shadow model agrees:' }), badge(item.shadow.status),
      el('span', { text: `${Math.round(item.shadow.confidence * 100)}% confident (${item.shadow.modelVersion}; the answer came from ${v.modelVersion})` })));
  }
  const facts = el('dl', { className: 'facts' });
  const fact = (k, val) => facts.append(el('dt', { text: k }), el('dd', { text: val }));
  fact('Submission', item.submissionId);
  fact('Form', item.formId);
  fact('Received', when(item.receivedAt));
  fact('Origin', item.origin ?? '(none)');
  fact('Model', v.modelVersion);
  if (label) fact('Labelled', `${label.label} by ${label.moderatorId}, ${when(label.labelledAt)}`);
  detail.append(facts);
  if (queued === false) {
    detail.append(el('p', { className: 'note', text: 'Not queued for review (a confident verdict that was not sampled): only the verdict is kept, not the fields.' }));
    return;
  }
  // Fields cut to the size limit are said where the moderator reads: before the fields (the end of a long one is far
  // down the page), and beside each field cut, where its text stops.
  const cut = new Set(Array.isArray(item.cutFields) ? item.cutFields : []);
  if (item.truncated) {
    const which = cut.size > 0
      ? `Cut to the size limit, so their end is missing: ${[...cut].map(visible).join(', ')}.`
      : 'Some fields were cut to the size limit, so their end is missing (which ones was not recorded for this item).';
    detail.append(el('p', { className: 'note cut-summary', role: 'note', text: which }));
  }
  const fields = el('dl', { className: 'fields' });
  for (const [name, value] of Object.entries(item.fields)) {
    // dir=auto: a right-to-left message reads from the right, as its sender wrote it.
    const dt = el('dt', { dir: 'auto', text: visible(name) });
    if (cut.has(name)) dt.append(' ', el('span', { className: 'badge cut', text: 'cut' }));
    fields.append(dt, el('dd', { dir: 'auto', text: visible(typeof value === 'string' ? value : JSON.stringify(value, null, 2)) }));
    if (cut.has(name)) fields.append(el('dd', { className: 'cut-mark', text: '✂ Cut here: the rest of this field was over the size limit and was not kept.' }));
  }
  detail.append(fields);
}

async function mark(label) {
  const item = state.current;
  if (!item || state.busy) return;
  state.busy = true;
  try {
    const r = await call('POST', `/items/${encodeURIComponent(item.submissionId)}/label`, { label, expected: state.seen });
    showCounts(r.counts);
    toast(`Labelled ${label} · u to undo`);
    const at = state.items.findIndex((x) => x.submissionId === item.submissionId);
    if (at >= 0) {
      state.items.splice(at, 1);
      renderList();
      select(at);
    } else {
      // A looked-up item: stay on it with its new label, so the next key acts on what is on screen.
      await show(item.submissionId);
    }
  } catch (err) {
    toast(err.message);
    if (err.status === 409) {
      // Labelled by someone else meanwhile: take it off the pending list and show it as it is now.
      state.items = state.items.filter((x) => x.submissionId !== item.submissionId);
      renderList();
      await show(item.submissionId).catch(() => undefined);
    }
  } finally {
    state.busy = false;
  }
}

async function undo() {
  if (state.busy) return;
  state.busy = true;
  try {
    const r = await call('POST', '/undo', {});
    showCounts(r.counts);
    if (r.kind === 'relabelled') { toast(`Not undone: ${r.by} relabelled it since`); return; }
    if (r.kind !== 'undone') { toast('Nothing to undo'); return; }
    await load();
    const at = state.items.findIndex((x) => x.submissionId === r.submissionId);
    if (at >= 0) { select(at); toast('Label undone'); return; }
    // Undoing a relabel puts the earlier label back: show the item with it.
    const entry = await show(r.submissionId);
    toast(entry.label ? `Label undone: back to ${entry.label.label} by ${entry.label.moderatorId}` : 'Label undone');
  } catch (err) {
    toast(err.message);
  } finally {
    state.busy = false;
  }
}

// Shows one submission as stored now (with its label) and makes it the one the keys act on.
async function show(id) {
  const entry = await call('GET', `/items/${encodeURIComponent(id)}`);
  state.current = entry.item;
  // A label stored before labels had ids is named by its time.
  state.seen = entry.label ? (entry.label.labelId ?? entry.label.labelledAt) : null;
  for (const node of $('list').children) node.setAttribute('aria-selected', 'false');
  $('list').removeAttribute('aria-activedescendant');
  renderDetail(entry);
  return entry;
}

async function lookup() {
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

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) {
    if (event.key === 'Escape') target.blur();
    return;
  }
  if ($('console').hidden) return;
  const actions = {
    j: () => select(state.index + 1),
    ArrowDown: () => select(state.index + 1),
    k: () => select(state.index - 1),
    ArrowUp: () => select(state.index - 1),
    s: () => mark('spam'),
    h: () => mark('legitimate'),
    u: () => undo(),
    '/': () => {
      const box = $('lookup-id');
      box.focus();
      box.select(); // the next id typed or pasted replaces the last one
    },
  };
  const action = actions[event.key];
  if (action) {
    event.preventDefault();
    void action();
  }
}

document.addEventListener('DOMContentLoaded', () => {
  $('sign-in-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('sign-in-error').textContent = '';
    const input = $('token');
    try {
      await call('POST', '/session', { token: input.value });
      input.value = '';
      await start();
    } catch (err) {
      input.value = '';
      $('sign-in-error').textContent = err.status === 401 ? 'That token is not valid.' : err.message;
    }
  });
  $('sign-out').addEventListener('click', async () => {
    try { await call('POST', '/sign-out', {}); } finally { showSignIn(); }
  });
  $('filter-form').addEventListener('change', (e) => { state.filter.form = e.target.value; void load(); });
  $('filter-status').addEventListener('change', (e) => { state.filter.status = e.target.value; void load(); });
  $('filters').addEventListener('submit', (e) => { e.preventDefault(); void lookup(); });
  $('lookup').addEventListener('click', () => void lookup());
  $('mark-spam').addEventListener('click', () => void mark('spam'));
  $('mark-legitimate').addEventListener('click', () => void mark('legitimate'));
  $('undo').addEventListener('click', () => void undo());
  document.addEventListener('keydown', onKey);
  void start();
});
