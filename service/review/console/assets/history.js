// The history: the account's labels, newest first (who, when, which label, one by one or in bulk), filterable, with
// undo of any one of them. Submitted text goes in as text only, never as HTML.
import { $ } from './dom.js';

export const LabelHistory = (() => {
  const HOW = { single: 'one by one', bulk: 'bulk', reported: 'reported miss' };
  let api;
  let wired = false;

  function cell(text, className) {
    const c = document.createElement('td');
    c.textContent = text;
    if (className) c.className = className;
    return c;
  }

  function when(iso) {
    const d = new Date(iso);
    return Number.isNaN(d.getTime())
      ? iso
      : d.toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
  }

  function query() {
    const q = new URLSearchParams({ limit: '100' });
    for (const [name, id] of [
      ['moderator', 'history-moderator'],
      ['label', 'history-label'],
      ['how', 'history-how'],
    ])
      if ($(id).value) q.set(name, $(id).value);
    return q;
  }

  async function load() {
    const data = await api.call('GET', `/history?${query()}`);
    const select = $('history-moderator');
    const chosen = select.value;
    while (select.options.length > 1) select.remove(1);
    for (const m of data.moderators) {
      const o = document.createElement('option');
      o.value = m;
      o.textContent = m;
      select.append(o);
    }
    select.value = data.moderators.includes(chosen) ? chosen : '';
    $('history-info').textContent =
      `${data.total.toLocaleString()} label(s)${data.total > data.rows.length ? `, the newest ${data.rows.length} shown` : ''}` +
      (data.scanCapped ? ' (of the newest 2,000 labels)' : '');
    render(data.rows);
  }

  function render(rows) {
    const table = $('history-table');
    table.replaceChildren();
    const head = document.createElement('tr');
    for (const h of ['When', 'Moderator', 'Label', 'How', 'Model said', 'Form', 'Message', '']) {
      const th = document.createElement('th');
      th.textContent = h;
      head.append(th);
    }
    const thead = document.createElement('thead');
    thead.append(head);
    const body = document.createElement('tbody');
    for (const row of rows) {
      const tr = document.createElement('tr');
      tr.dataset.id = row.submissionId;
      const spam = row.modelStatus === 'spam' ? row.modelConfidence : 1 - row.modelConfidence;
      const undo = document.createElement('button');
      undo.type = 'button';
      undo.className = 'quiet undo-label';
      undo.textContent = 'Undo';
      undo.addEventListener('click', () => void take(row));
      const last = document.createElement('td');
      last.append(undo);
      tr.append(
        cell(when(row.labelledAt)),
        cell(row.moderatorId),
        cell(row.label, `label ${row.label}`),
        cell(row.how ? HOW[row.how] : 'not recorded', 'how'),
        cell(`${row.modelStatus} (spam ${spam.toFixed(2)})`),
        cell(row.formId),
        cell(row.message, 'message'),
        last,
      );
      body.append(tr);
    }
    table.append(thead, body);
  }

  async function take(row) {
    try {
      const r = await api.call('POST', `/items/${encodeURIComponent(row.submissionId)}/unlabel`, { seen: row.labelId ?? row.labelledAt });
      api.onChange(r.counts);
      api.toast(
        r.kind === 'undone' && r.members > 0
          ? `Label undone with ${r.members} similar submission(s) labelled in the same action: pending again as one group`
          : r.kind === 'undone'
            ? 'Label undone: the item is pending again'
            : r.kind === 'restored'
              ? 'Label undone: the label it replaced is back'
              : r.kind === 'changed'
                ? `Not undone: ${r.by} labelled it since`
                : 'Not undone: the item is gone (past retention)',
      );
      await load();
    } catch (err) {
      api.toast(err.message);
    }
  }

  async function show(context) {
    api = context;
    if (!wired) {
      wired = true;
      for (const id of ['history-moderator', 'history-label', 'history-how'])
        $(id).addEventListener('change', () => void load().catch((err) => api.toast(err.message)));
    }
    try {
      await load();
    } catch (err) {
      api.toast(err.message);
    }
  }

  function reset() {
    for (const id of ['history-moderator', 'history-label', 'history-how']) $(id).value = '';
    $('history-table').replaceChildren();
    $('history-info').textContent = '';
  }

  return { show, reset };
})();
