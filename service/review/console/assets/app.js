// Moderator console. Everything a submission holds is attacker-written: it is only ever put in the page
// through textContent / createElement, never as HTML, and the CSP allows no inline script at all.
'use strict';

const API = '/review/api';
// seen: the label on screen for the current item (null: none) by its labelId, sent with a label so that a label
// someone else gave meanwhile, even in the same millisecond, is reported (409) instead of silently replaced.
// selected: submissionIds picked for a bulk label; anchor: the row a shift-click or Shift+j/k extends from.
const PAGE = 100;
const emptyView = () => ({ form: '', status: '', sort: 'oldest', from: '', to: '', q: '' });
// What a session puts on the screen: the list, the current item, the filter, the selection.
const emptyScreen = () => ({
  items: [],
  index: 0,
  current: undefined,
  seen: null,
  filter: emptyView(),
  offset: 0,
  total: 0,
  selected: new Set(),
  anchor: 0,
});
const state = { ...emptyScreen(), busy: false, keepFieldsDays: 0, view: 'queue' };
const SORTS = ['oldest', 'newest', 'confidence-high', 'confidence-low'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

// The address holds what is on screen (view, filters, search, page, open item): a reload keeps it, and a link to an
// item opens it. Replaced, not pushed: moving through the list must not fill the browser's history.
function writeUrl() {
  const f = state.filter;
  const q = new URLSearchParams();
  if (state.view !== 'queue') q.set('view', state.view);
  if (f.form) q.set('form', f.form);
  if (f.status) q.set('status', f.status);
  if (f.sort !== 'oldest') q.set('sort', f.sort);
  if (f.from) q.set('from', f.from);
  if (f.to) q.set('to', f.to);
  if (f.q) q.set('q', f.q);
  if (state.offset > 0) q.set('offset', String(state.offset));
  if (state.current) q.set('item', state.current.submissionId);
  const query = q.toString();
  const url = `${location.pathname}${query ? `?${query}` : ''}`;
  if (url !== location.pathname + location.search) history.replaceState(null, '', url);
}

// What the address asks for; anything malformed is left out rather than sent to the server.
function readUrl() {
  const q = new URLSearchParams(location.search);
  const get = (name) => q.get(name) ?? '';
  state.filter = {
    form: get('form').slice(0, 200),
    status: ['spam', 'legitimate'].includes(get('status')) ? get('status') : '',
    sort: SORTS.includes(get('sort')) ? get('sort') : 'oldest',
    from: DAY.test(get('from')) ? get('from') : '',
    to: DAY.test(get('to')) ? get('to') : '',
    q: get('q').slice(0, 300),
  };
  const offset = Number.parseInt(get('offset'), 10);
  state.offset = Number.isFinite(offset) && offset > 0 ? offset - (offset % PAGE) : 0;
  return {
    view: ['dashboard', 'history', 'lists'].includes(get('view')) ? get('view') : 'queue',
    item: UUID.test(get('item')) ? get('item') : undefined,
  };
}
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
  try {
    data = await res.json();
  } catch {
    /* empty body */
  }
  if (res.status === 401 && path !== '/session') {
    showSignIn();
  }
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
  Object.assign(state, emptyScreen());
  $('list').replaceChildren();
  $('detail').replaceChildren();
  for (const id of ['summary', 'page-info', 'confirm-count']) $(id).textContent = '';
  for (const id of ['from', 'to', 'search']) $(id).value = '';
  $('sort').value = 'oldest';
  $('confirm-go').hidden = true;
  showSelection();
  if (window.Dashboard) window.Dashboard.reset();
  if (window.LabelHistory) window.LabelHistory.reset();
  if (window.AccountLists) window.AccountLists.reset();
  $('dashboard').hidden = true;
  $('history').hidden = true;
  $('lists').hidden = true;
  $('views').hidden = true;
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
  $('views').hidden = false;
  $('sign-out').hidden = false;
  state.keepFieldsDays = me.keepFieldsDays ?? 0;
  $('who').textContent = `${me.moderatorId} · ${me.accountId}`;
  const wanted = readUrl();
  const select = $('filter-form');
  while (select.options.length > 1) select.remove(1);
  for (const form of me.forms) select.append(el('option', { value: form, text: form }));
  // A form of the address this account does not have filters nothing: dropped, so the box and the list agree.
  if (!me.forms.includes(state.filter.form)) state.filter.form = '';
  select.value = state.filter.form;
  $('filter-status').value = state.filter.status;
  $('sort').value = state.filter.sort;
  $('from').value = state.filter.from;
  $('to').value = state.filter.to;
  $('search').value = state.filter.q;
  showCounts(me.counts);
  setView(wanted.view);
  await load();
  if (wanted.item !== undefined) {
    const at = state.items.findIndex((x) => x.submissionId === wanted.item);
    if (at >= 0) select(at);
    else await show(wanted.item).catch((err) => toast(err.message));
  }
  // Where the work starts: the keys act on the list, Tab goes on to the label buttons. (The sign-in form the focus
  // was in is hidden now; left alone, the focus would fall to the page and the first Tab skip the filters and list.)
  const lookedUp = wanted.item !== undefined && state.current?.submissionId === wanted.item && !state.items.includes(state.current);
  if (wanted.view === 'queue') (lookedUp ? $('detail') : $('list')).focus();
}

async function load(keepIndex = false) {
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
  showSummary(data.summary);
  showPage();
  renderList();
  select(state.index);
}

function showSummary(s) {
  const forms = Object.entries(s.byForm)
    .map(([form, n]) => `${visible(form)} ${n.toLocaleString()}`)
    .join(' · ');
  const f = state.filter;
  const days = f.from || f.to ? ` (${f.from || '…'} to ${f.to || '…'})` : '';
  $('summary').textContent =
    `Pending${days} by verdict: spam ${s.byStatus.spam.toLocaleString()} · legitimate ${s.byStatus.legitimate.toLocaleString()}` +
    (forms ? ` — by form: ${forms}` : '');
}

function showPage() {
  const n = state.items.length;
  const what = state.filter.q ? (state.scanCapped ? 'found among the newest 1,000 hits' : 'found') : 'pending';
  $('page-info').textContent =
    n === 0
      ? `0 ${what}`
      : `${(state.offset + 1).toLocaleString()}–${(state.offset + n).toLocaleString()} of ${state.total.toLocaleString()} ${what}`;
  $('page-prev').disabled = state.offset === 0;
  $('page-next').disabled = state.offset + n >= state.total;
  $('list').setAttribute(
    'aria-label',
    state.filter.q ? 'Search results' : `Pending items, ${$('sort').selectedOptions[0]?.textContent.toLowerCase() ?? 'oldest first'}`,
  );
}

async function turnPage(step) {
  const next = state.offset + step * PAGE;
  if (next < 0 || (step > 0 && next >= state.total)) return;
  state.offset = next;
  state.selected.clear();
  await load();
}

// A day typed as YYYY-MM-DD (empty: no bound); anything else is said, and the list stays as it is.
function setDay(which, value) {
  const v = value.trim();
  if (v !== '' && (!DAY.test(v) || Number.isNaN(new Date(`${v}T00:00:00`).getTime()))) {
    toast('Type a day as YYYY-MM-DD');
    return;
  }
  refilter({ [which]: v });
}

// A new filter starts at the first page.
function refilter(change) {
  Object.assign(state.filter, change);
  state.offset = 0;
  state.selected.clear();
  $('confirm-count').textContent = '';
  $('confirm-go').hidden = true;
  void load().catch((err) => toast(err.message));
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

// With its time zone: moderators in several zones read one queue.
function when(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString(undefined, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        timeZoneName: 'short',
      });
}

// The number shown is the model's spam probability, whatever its verdict: "spam 0.72". Two decimals, except at
// the ends, where rounding would claim a certainty the model did not give ("spam > 0.99" rather than "1.00").
function spamProbability(verdict) {
  return verdict.status === 'spam' ? verdict.confidence : 1 - verdict.confidence;
}
function spamScore(verdict) {
  const p = spamProbability(verdict);
  if (p > 0.99 && p < 1) return 'spam > 0.99';
  if (p < 0.01 && p > 0) return 'spam < 0.01';
  return `spam ${p.toFixed(2)}`;
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
    const text = state.filter.q ? 'Nothing found.' : 'Nothing pending. Well done.';
    list.append(el('li', { className: 'empty', role: 'option', 'aria-disabled': 'true', 'aria-selected': 'false', text }));
    return;
  }
  state.items.forEach((item, i) => {
    const picked = state.selected.has(item.submissionId);
    // The list keeps the focus (a listbox): the boxes are for the mouse, x / a / Shift+j/k for the keyboard.
    const box = el('input', { type: 'checkbox', className: 'pick', tabindex: '-1', 'aria-label': 'Select for a bulk label' });
    box.checked = picked;
    box.addEventListener('click', (event) => {
      event.stopPropagation();
      if (event.shiftKey) pickRange(state.anchor, i, box.checked);
      else pick(i, box.checked);
      state.anchor = i;
    });
    // aria-activedescendant names the current option by this id.
    const li = el(
      'li',
      {
        id: `item-${item.submissionId}`,
        'data-id': item.submissionId,
        role: 'option',
        'aria-selected': 'false',
        'aria-checked': picked ? 'true' : 'false',
      },
      box,
      el(
        'span',
        { className: 'meta' },
        badge(item.verdict.status),
        el('span', { className: 'score', text: spamScore(item.verdict) }),
        ...(disagrees(item) ? [el('span', { className: 'badge disagreement', text: `shadow: ${item.shadow.status}` })] : []),
        item.campaign > 1 ? el('span', { className: 'badge campaign', text: `×${item.campaign} identical` }) : undefined,
        groupBadge(item),
        el('span', { text: item.formId }),
        el('span', { className: 'time', text: when(item.receivedAt) }),
        item.label ? el('span', { className: 'labelled', text: `labelled ${item.label.label}` }) : undefined,
        item.queued === false ? el('span', { className: 'labelled', text: 'not queued' }) : undefined,
      ),
      el('span', { className: 'preview', dir: 'auto', text: item.message ? visible(item.message) : preview(item.fields) }),
      item.email && item.email !== item.message ? el('span', { className: 'email', dir: 'auto', text: visible(item.email) }) : undefined,
      groupExamples(item),
    );
    li.addEventListener('click', (event) => {
      if (event.shiftKey) {
        pickRange(state.anchor, i, true);
        return;
      }
      state.anchor = i;
      select(i);
    });
    list.append(li);
  });
}

// Similar submissions (one template, names, numbers and links varied) are one row: its count, and a few of the others.
function groupSize(item) {
  return item.group?.size ?? 1;
}

function groupBadge(item) {
  return groupSize(item) > 1 ? el('span', { className: 'badge campaign group', text: `×${groupSize(item)} similar` }) : undefined;
}

function groupExamples(item) {
  const examples = item.group?.examples ?? [];
  if (groupSize(item) <= 1 || examples.length === 0) return undefined;
  return el(
    'span',
    { className: 'group-examples' },
    el('span', { text: 'Also: ' }),
    ...examples.map((x) =>
      el('span', { className: 'group-example', dir: 'auto', text: visible(x.email ? `${x.email}: ${x.message}` : x.message) }),
    ),
  );
}

function pick(i, on) {
  const item = state.items[i];
  if (!item) return;
  if (on) state.selected.add(item.submissionId);
  else state.selected.delete(item.submissionId);
  const li = $('list').children[i];
  if (li) {
    li.setAttribute('aria-checked', on ? 'true' : 'false');
    const box = li.querySelector('input.pick');
    if (box) box.checked = on;
  }
  showSelection();
}

function pickRange(from, to, on) {
  const [a, b] = from <= to ? [from, to] : [to, from];
  for (let i = a; i <= b; i++) pick(i, on);
}

function pickPage() {
  const all = state.items.length > 0 && state.items.every((x) => state.selected.has(x.submissionId));
  state.items.forEach((_, i) => pick(i, !all));
}

// The one rule for what s / h (and the Spam / Legitimate buttons) label: the selection when there is one, else the
// item on screen. The bar at the bottom says which before anything happens, and whether the item on screen is in it.
function showSelection() {
  const n = state.selected.size;
  $('selected-count').textContent = n === 0 ? 'None selected' : `${n} selected`;
  $('clear-selection').hidden = n === 0;
  const page = $('select-page');
  page.checked = n > 0 && state.items.length > 0 && state.items.every((x) => state.selected.has(x.submissionId));
  const bar = $('target');
  if (n === 0) {
    $('mark-spam-text').textContent = 'Spam';
    $('mark-legitimate-text').textContent = 'Legitimate';
    bar.textContent = state.current ? 'Labels the item on screen' : 'Nothing to label';
    bar.className = 'target';
    return;
  }
  $('mark-spam-text').textContent = `Spam: label ${n} selected`;
  $('mark-legitimate-text').textContent = `Legitimate: label ${n} selected`;
  const inIt = state.current !== undefined && state.selected.has(state.current.submissionId);
  bar.textContent = `Labels the ${n} selected. The item on screen is ${inIt ? 'one of them' : 'NOT one of them'}.`;
  bar.className = inIt ? 'target bulk-target' : 'target bulk-target outside';
}

function clearSelection() {
  state.items.forEach((item, i) => {
    if (state.selected.has(item.submissionId)) pick(i, false);
  });
  state.selected.clear();
  showSelection();
}

function select(i) {
  if (state.items.length === 0) {
    state.current = undefined;
    renderDetail(undefined);
    showSelection();
    writeUrl();
    return;
  }
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
  const l = state.current.label;
  state.seen = l ? (l.labelId ?? l.labelledAt) : null;
  renderDetail({ item: state.current, label: l ?? undefined, queued: state.current.queued, fieldsKept: true });
  showSelection();
  writeUrl();
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
    el('h2', {}, el('span', { text: 'Model says' }), badge(v.status), el('span', { className: 'score', text: spamScore(v) })),
    el('p', { className: 'reasoning', text: visible(v.reasoning) }),
  );
  // A shadow model's verdict: the caller was answered by the active model; a disagreement is why the item is here.
  if (item.shadow) {
    detail.append(
      el(
        'p',
        { className: disagrees(item) ? 'shadow-verdict disagreement' : 'shadow-verdict' },
        el('span', { text: disagrees(item) ? 'Models disagree. Shadow model says' : 'Shadow model agrees:' }),
        badge(item.shadow.status),
        el('span', {
          text: `${spamScore(item.shadow)} (${item.shadow.modelVersion}; the answer came from ${v.modelVersion})`,
        }),
      ),
    );
  }
  const facts = el('dl', { className: 'facts' });
  const fact = (k, val) => facts.append(el('dt', { text: k }), el('dd', { text: val }));
  fact('Submission', item.submissionId);
  fact('Form', item.formId);
  fact('Received', when(item.receivedAt));
  fact('Origin', item.origin ?? '(none)');
  fact('Model', v.modelVersion);
  if (label) fact('Labelled', `${label.label} by ${label.moderatorId}, ${when(label.labelledAt)}`);
  // A flood: identical submissions merged into this one item; one label settles them all.
  if (item.campaign > 1)
    fact('Campaign', `${item.campaign} identical submissions (this one and ${item.campaign - 1} more); one label covers them`);
  const group = entry.group ?? item.group;
  if (group && group.size > 1 && !label)
    fact(
      'Similar',
      `${group.size} similar submissions (this one and ${group.size - 1} more, names, numbers or links varied); one label labels them all, one undo takes it back`,
    );
  detail.append(facts);
  // Block or allow its sender, its e-mail domain, the domains it links to (lists.js).
  if (window.AccountLists && entry.fieldsKept !== false) detail.append(window.AccountLists.itemActions(item, { call, toast }));
  if (queued === false && entry.fieldsKept === false) {
    detail.append(
      el('p', {
        className: 'note not-kept',
        text: `Not queued for review (a confident verdict that was not sampled), and its fields were not kept: they are kept ${state.keepFieldsDays} day(s) after receipt. If it was spam the model let through, paste its fields (a JSON object, as your form sent them) to report it.`,
      }),
      pasteForm(item.submissionId),
    );
    return;
  }
  if (queued === false) {
    detail.append(
      el('p', {
        className: 'note',
        text: 'Not queued for review (a confident verdict that was not sampled). Its fields are kept for a few days: label it to report a miss, and the label is exported like any other.',
      }),
    );
  }
  // Fields cut to the size limit are said where the moderator reads: before the fields (the end of a long one is far
  // down the page), and beside each field cut, where its text stops.
  const cut = new Set(Array.isArray(item.cutFields) ? item.cutFields : []);
  if (item.truncated) {
    const which =
      cut.size > 0
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
    if (cut.has(name))
      fields.append(
        el('dd', { className: 'cut-mark', text: '✂ Cut here: the rest of this field was over the size limit and was not kept.' }),
      );
  }
  detail.append(fields);
}

// Label and undo run one after another: a key pressed while the last label's page refill is in flight waits for it
// instead of being dropped (a moderator's quick "h" then "u" did nothing).
let actions = Promise.resolve();
function inTurn(action) {
  const next = actions.then(action);
  actions = next.catch(() => undefined);
  return next;
}

function mark(label) {
  return inTurn(() => markNow(label));
}

function undo() {
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
      state.items.splice(at, 1);
      state.total = Math.max(0, state.total - 1);
      showPage();
      renderList();
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
      renderList();
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

// Shows one submission as stored now (with its label) and makes it the one the keys act on.
async function show(id) {
  const entry = await call('GET', `/items/${encodeURIComponent(id)}`);
  state.keepFieldsDays = entry.keepFieldsDays ?? state.keepFieldsDays;
  state.current = entry.item;
  // A label stored before labels had ids is named by its time.
  state.seen = entry.label ? (entry.label.labelId ?? entry.label.labelledAt) : null;
  for (const node of $('list').children) node.setAttribute('aria-selected', 'false');
  $('list').removeAttribute('aria-activedescendant');
  renderDetail(entry);
  showSelection();
  writeUrl();
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

// Shift+j/k: the selection grows (or shrinks) with the move, as a shift-click would.
function extend(step) {
  const from = state.index;
  if (!state.selected.has(state.current?.submissionId)) pick(from, true);
  select(from + step);
  pick(state.index, true);
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
    showSelection();
  }
}

function confirmQuery() {
  const min = Number($('confirm-min').value);
  if (!(min >= 0 && min <= 1)) throw new Error('A confidence between 0 and 1');
  return { min, ...(state.filter.form ? { form: state.filter.form } : {}) };
}

// The preview says what the confirm takes; the confirm button names that count, so nothing is labelled unseen.
async function confirmPreview() {
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

async function confirmAll() {
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

// A miss whose fields were not kept: the moderator pastes them (a JSON object) and labels them with its verdict.
function pasteForm(submissionId) {
  const area = el('textarea', {
    id: 'paste-fields',
    rows: '6',
    spellcheck: 'false',
    'aria-label': "The submission's fields, as a JSON object",
    placeholder: '{"email": "…", "message": "…"}',
  });
  const send = async (label) => {
    let fields;
    try {
      fields = JSON.parse(area.value);
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
  };
  const spam = el('button', { type: 'button', className: 'spam', id: 'paste-spam', text: 'Report as spam' });
  const legit = el('button', { type: 'button', className: 'legit', id: 'paste-legitimate', text: 'Report as legitimate' });
  spam.addEventListener('click', () => void send('spam'));
  legit.addEventListener('click', () => void send('legitimate'));
  return el('div', { className: 'paste' }, area, el('p', { className: 'paste-actions' }, spam, ' ', legit));
}

const VIEWS = { queue: 'console', dashboard: 'dashboard', history: 'history', lists: 'lists' };

function setView(view) {
  const before = state.view;
  state.view = view;
  writeUrl();
  for (const [name, main] of Object.entries(VIEWS)) {
    $(main).hidden = name !== view;
    $(`view-${name}`).setAttribute('aria-pressed', name === view ? 'true' : 'false');
  }
  if (view === 'dashboard' && window.Dashboard) void window.Dashboard.show(call, toast);
  if (view === 'history' && window.LabelHistory) void window.LabelHistory.show({ call, toast, onChange: showCounts });
  if (view === 'lists' && window.AccountLists) void window.AccountLists.show({ call, toast });
  // Back from the history (where labels may have been undone): the list is read again.
  if (view === 'queue' && before !== 'queue') void load(true).catch((err) => toast(err.message));
}

function onKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) {
    if (event.key === 'Escape') target.blur();
    return;
  }
  if ($('console').hidden) return;
  if (event.key === 'Escape' && state.selected.size > 0) {
    clearSelection();
    return;
  }
  if (event.shiftKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp')) {
    event.preventDefault();
    extend(event.key === 'ArrowDown' ? 1 : -1);
    return;
  }
  const actions = {
    j: () => select(state.index + 1),
    ArrowDown: () => select(state.index + 1),
    k: () => select(state.index - 1),
    ArrowUp: () => select(state.index - 1),
    J: () => extend(1),
    K: () => extend(-1),
    x: () => {
      pick(state.index, !state.selected.has(state.current?.submissionId));
      state.anchor = state.index;
    },
    a: () => pickPage(),
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
    try {
      await call('POST', '/sign-out', {});
    } finally {
      // The next person at this screen starts from the plain console, not from this session's filters or item.
      history.replaceState(null, '', location.pathname);
      showSignIn();
    }
  });
  $('filter-form').addEventListener('change', (e) => refilter({ form: e.target.value }));
  $('filter-status').addEventListener('change', (e) => refilter({ status: e.target.value }));
  $('sort').addEventListener('change', (e) => refilter({ sort: e.target.value }));
  $('from').addEventListener('change', (e) => setDay('from', e.target.value));
  $('to').addEventListener('change', (e) => setDay('to', e.target.value));
  $('refine').addEventListener('submit', (e) => {
    e.preventDefault();
    refilter({ q: $('search').value.trim() });
  });
  $('search').addEventListener('search', () => {
    if ($('search').value === '' && state.filter.q) refilter({ q: '' });
  });
  $('page-prev').addEventListener('click', () => void turnPage(-1).catch((err) => toast(err.message)));
  $('page-next').addEventListener('click', () => void turnPage(1).catch((err) => toast(err.message)));
  $('select-page').addEventListener('change', () => pickPage());
  $('clear-selection').addEventListener('click', () => clearSelection());
  $('confirm-preview').addEventListener('click', () => void confirmPreview());
  $('confirm-go').addEventListener('click', () => void confirmAll());
  $('view-queue').addEventListener('click', () => setView('queue'));
  $('view-dashboard').addEventListener('click', () => setView('dashboard'));
  $('view-history').addEventListener('click', () => setView('history'));
  $('view-lists').addEventListener('click', () => setView('lists'));
  $('filters').addEventListener('submit', (e) => {
    e.preventDefault();
    void lookup();
  });
  $('lookup').addEventListener('click', () => void lookup());
  $('mark-spam').addEventListener('click', () => void mark('spam'));
  $('mark-legitimate').addEventListener('click', () => void mark('legitimate'));
  $('undo').addEventListener('click', () => void undo());
  document.addEventListener('keydown', onKey);
  void start();
});
