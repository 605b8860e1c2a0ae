// The list of pending items (or search hits), the pager and the counts above it, drawn from the state.
import { $, badge, el } from './dom.js';
import { state } from './state.js';
import { disagrees, preview, spamScore, visible, when } from './text.js';

export function showCounts(counts) {
  // Shown once the full queue has turned sure spam verdicts away (they stay findable by search for the look-up window).
  const shed = counts.shed > 0 ? ` · ${counts.shed} sure spam not queued (queue full)` : '';
  $('counts').textContent = `${counts.pending} pending · ${counts.labelled} labelled${shed}`;
}

export function showSummary(s) {
  const forms = Object.entries(s.byForm)
    .map(([form, n]) => `${visible(form)} ${n.toLocaleString()}`)
    .join(' · ');
  const f = state.filter;
  const days = f.from || f.to ? ` (${f.from || '…'} to ${f.to || '…'})` : '';
  $('summary').textContent =
    `Pending${days} by verdict: spam ${s.byStatus.spam.toLocaleString()} · legitimate ${s.byStatus.legitimate.toLocaleString()}` +
    (forms ? ` — by form: ${forms}` : '');
}

export function showPage() {
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

export function renderList() {
  const list = $('list');
  list.replaceChildren();
  list.removeAttribute('aria-activedescendant');
  if (state.items.length === 0) {
    const text = state.filter.q ? 'Nothing found.' : 'Nothing pending. Well done.';
    list.append(el('li', { className: 'empty', role: 'option', 'aria-disabled': 'true', 'aria-selected': 'false', text }));
    return;
  }
  // Drawn from the state alone: clicks on the rows and their boxes are taken by one listener on the list (app.js).
  for (const item of state.items) {
    const picked = state.selected.has(item.submissionId);
    // The list keeps the focus (a listbox): the boxes are for the mouse, x / a / Shift+j/k for the keyboard.
    const box = el('input', { type: 'checkbox', className: 'pick', tabindex: '-1', 'aria-label': 'Select for a bulk label' });
    box.checked = picked;
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
    list.append(li);
  }
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
