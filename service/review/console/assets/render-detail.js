// The item on screen: the model's verdict, the facts, the fields as they were sent (cut ones marked).
import { AccountLists } from './lists.js';
import { call } from './api.js';
import { $, badge, el, toast } from './dom.js';
import { state } from './state.js';
import { disagrees, spamScore, visible, when } from './text.js';

export function renderDetail(entry) {
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
      `${group.size} similar submissions (this one and ${group.size - 1} more like it: the same words, or the same template with names, numbers or links varied); one label labels them all, one undo takes it back`,
    );
  detail.append(facts);
  // Block or allow its sender, its e-mail domain, the domains it links to (lists.js).
  if (entry.fieldsKept !== false) detail.append(AccountLists.itemActions(item, { call, toast }));
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

// A miss whose fields were not kept: the moderator pastes them (a JSON object) and labels them with its verdict.
// Its buttons are taken by the detail's one listener (app.js), which sends the fields (labelling.js: report).
function pasteForm(submissionId) {
  const area = el('textarea', {
    id: 'paste-fields',
    rows: '6',
    spellcheck: 'false',
    'aria-label': "The submission's fields, as a JSON object",
    placeholder: '{"email": "…", "message": "…"}',
  });
  const spam = el('button', { type: 'button', className: 'spam', id: 'paste-spam', 'data-label': 'spam', text: 'Report as spam' });
  const legit = el('button', {
    type: 'button',
    className: 'legit',
    id: 'paste-legitimate',
    'data-label': 'legitimate',
    text: 'Report as legitimate',
  });
  return el('div', { className: 'paste', 'data-id': submissionId }, area, el('p', { className: 'paste-actions' }, spam, ' ', legit));
}
